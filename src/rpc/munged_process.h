// A private munged for integration tests and `sluice up --munge`: StartMunged(dir)
// creates `dir` (mode 0755, so every local user can reach the socket), writes a fresh
// 1024-byte key from the OS's random source (mode 0400), and starts munged with its
// key, socket, pid, log and seed files all inside `dir`. munged forks into the
// background once its socket is ready; StartMunged returns after that. StopMunged
// sends SIGTERM (SIGKILL after 100 ms) to the pid in its pid file (without one: `munged --stop` on
// the socket).

//   Expected<MungedPaths> m = StartMunged("/tmp/x/munge");   // m->socket
// FindMunged() is "" when munged is not installed (callers skip MUNGE tests then).
#pragma once

#include <string>

#include "common/status.h"

namespace sluice {

struct MungedPaths {
  std::string dir;
  std::string socket;    // <dir>/munge.socket
  std::string pid_file;  // <dir>/munged.pid
  std::string log_file;  // <dir>/munged.log
};

std::string FindMunged();
MungedPaths MungedPathsIn(const std::string& dir);
Expected<MungedPaths> StartMunged(const std::string& dir);
void StopMunged(const MungedPaths& paths);

}  // namespace sluice
