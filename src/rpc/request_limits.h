// Size limits on client requests, checked by the commands before they send (client/) and
// by the controller before anything else looks at them (it trusts no client), so an
// oversize request gets a clear error and never costs the controller more than a scan.
// Every string field of the request (nested messages included) is bounded (the sizes
// are in common/request_bounds.h, which the commands check too):
//   JobSpec.script                          kMaxScriptBytes (4 MiB, Slurm's max_script_size)
//   paths (work_dir, stdout/stderr/stdin patterns, command, input_pattern)  kMaxPathBytes
//   hostlists and specs (nodelist, exclude, constraint, dependency, array_spec)
//                                           kMaxListBytes
//   env (repeated)                          kMaxEnvEntries entries, kMaxEnvBytes in total
//   argv (repeated)                         kMaxArgvEntries entries, kMaxArgvBytes in total
//   every other string                      kMaxStringBytes (1024, as Slurm)
//   every other repeated field (ids, nested messages)  kMaxRepeatedEntries entries
// A violation is kInvalidArgument with Slurm's ESLURM_PATHNAME_TOO_LONG text
// ("Pathname of a file, directory or other parameter too long"); `detail` (optional)
// receives which field and sizes, for the controller's log. The gRPC transport itself
// is bounded at kMaxRpcMessageBytes on both ends (grpc_limits.h).
#pragma once

#include <google/protobuf/message.h>

#include <cstddef>
#include <string>

#include "common/request_bounds.h"
#include "common/status.h"

namespace sluice {

Status CheckRequestLimits(const google::protobuf::Message& request, std::string* detail = nullptr);

// What a sender checks: a request larger than kMaxListBytes is checked here and refused
// without being sent (no megabytes shipped to be refused); a smaller one is sent as it is,
// and the controller, which checks every request, answers the same error. The field walk
// needs the descriptors built, about a millisecond of a one-shot command's life.
Status CheckBeforeSending(const google::protobuf::Message& request);

}  // namespace sluice
