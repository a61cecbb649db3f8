// StepdLauncher: starts `sluice-stepd <jobdir>` in a new session (posix_spawn with
// POSIX_SPAWN_SETSID: no fork of the multi-threaded agent, well under a millisecond),
// with default signal dispositions and an empty signal mask. stepd redirects its own
// stdio and closes inherited fds, so it does not depend on the agent in any way and
// survives the agent's death (it is re-parented to init). Reap() collects the exit
// status of stepds this agent started, so none linger as zombies. Thread-safe.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

class StepdLauncher {
 public:
  explicit StepdLauncher(std::string stepd_path) : stepd_path_(std::move(stepd_path)) {}
  // `sluice-stepd` in the directory of the running executable.
  static std::string DefaultStepdPath();

  const std::string& stepd_path() const { return stepd_path_; }
  Expected<pid_t> Spawn(const std::string& job_dir);
  // `sluice-stepd --step <step_dir>` (job steps, see stepd/step_supervisor.h).
  Expected<pid_t> SpawnStep(const std::string& step_dir);
  void Reap();

 private:
  Expected<pid_t> SpawnArgs(std::vector<std::string> args);
  std::string stepd_path_;
  std::mutex mu_;
  std::set<pid_t> children_;
};

}  // namespace sluice
