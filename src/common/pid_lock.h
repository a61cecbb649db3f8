// PidLock: an exclusive flock on a file that holds the owner's pid, kept for the
// owner's life: one process at a time per file. The agent holds <spool>/sluiced.lock
// (AgentSpoolLockPath) so two agents for one node cannot run; `sluice up` asks Holder()
// whether a node's agent still runs. The lock goes with the process (crash included), so
// a stale file never blocks a restart. The descriptor is close-on-exec: children do not
// inherit the lock.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/status.h"

namespace sluice {

class PidLock {
 public:
  // Creates the file (not its directory) and locks it, then writes getpid() into it.
  // FailedPrecondition "held by pid <n>" when another process holds it.
  static Expected<PidLock> Acquire(const std::string& path);
  // The pid in `path` when a live process holds its lock; -1 when one holds it but has
  // not written its pid yet; 0 when none does (or there is no file).
  static pid_t Holder(const std::string& path);

  PidLock(PidLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  PidLock& operator=(PidLock&&) = delete;
  PidLock(const PidLock&) = delete;
  ~PidLock();

 private:
  explicit PidLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The agent's lock file in its spool directory.
inline std::string AgentSpoolLockPath(const std::string& spool_dir) {
  return spool_dir + "/sluiced.lock";
}

}  // namespace sluice
