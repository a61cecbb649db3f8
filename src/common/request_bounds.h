// The sizes one request may carry, shared by the commands (which refuse before they
// send) and the controller (which refuses again: it trusts no client;
// rpc/request_limits.h applies them to every field of every request). A refusal reads
// as Slurm's ESLURM_PATHNAME_TOO_LONG, kMsgTooLong.
//   kMaxScriptBytes   batch script (Slurm's max_script_size default, 4 MiB)
//   kMaxPathBytes     paths (work dir, output patterns, command)
//   kMaxListBytes     hostlists and specs (nodelist, exclude, constraint, dependency, array)
//   kMaxStringBytes   every other string (1024, as Slurm)
//   kMaxEnvEntries / kMaxEnvBytes    job or step environment: entries, bytes in total
//   kMaxArgvEntries / kMaxArgvBytes  script or task arguments: entries, bytes in total
//   kMaxRepeatedEntries              any other list (job ids, node names, ...)
#pragma once

#include <cstddef>

namespace sluice {

inline constexpr char kMsgTooLong[] = "Pathname of a file, directory or other parameter too long";
inline constexpr size_t kMaxScriptBytes = 4 << 20;
inline constexpr size_t kMaxPathBytes = 4096;
inline constexpr size_t kMaxListBytes = 64 << 10;
inline constexpr size_t kMaxStringBytes = 1024;
inline constexpr size_t kMaxEnvEntries = 65536;
inline constexpr size_t kMaxEnvBytes = 4 << 20;
inline constexpr size_t kMaxArgvEntries = 65536;
inline constexpr size_t kMaxArgvBytes = 2 << 20;
inline constexpr size_t kMaxRepeatedEntries = 65536;

}  // namespace sluice
