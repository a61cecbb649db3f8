// StepdLauncher: starts `sluice-stepd <jobdir>` in a new session (StartSubprocess, which
// does it with posix_spawn: no fork of the multi-threaded agent), with default signal
// dispositions and an empty signal mask. stepd redirects its own stdio and closes
// inherited fds, so it does not depend on the agent in any way and survives the agent's
// death (it is re-parented to init). Reap() collects the exit status of stepds this agent
// started, so none linger as zombies. Thread-safe.
//
// With `prestart`, one `sluice-stepd --wait` is kept started ahead of need, holding one
// end of a socket pair: a launch sends it its arguments instead of spawning, which takes
// the spawn (~1.5 ms: exec, loading, start-up) off the launch path, and a background
// thread starts the next one. As root, the waiting stepd starts SCHED_IDLE, so that its
// start-up does not take CPU from the launch that just consumed its predecessor, and is
// promoted to SCHED_OTHER when handed a launch. It exits when its socket closes (agent gone).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace sluice {

class StepdLauncher {
 public:
  explicit StepdLauncher(std::string stepd_path, bool prestart = false);
  ~StepdLauncher();
  // `sluice-stepd` in the directory of the running executable.
  static std::string DefaultStepdPath();

  const std::string& stepd_path() const { return stepd_path_; }
  Expected<pid_t> Spawn(const std::string& job_dir);
  // `sluice-stepd --step <step_dir>` (job steps, see stepd/step_supervisor.h).
  Expected<pid_t> SpawnStep(const std::string& step_dir);
  void Reap();
  // Whether `pid` is a stepd this launcher started and has not reaped (so not reused).
  bool IsChild(pid_t pid);
  // The prestarted stepd's pid, 0 while there is none.
  pid_t WaitingPid();

 private:
  struct Waiting {
    pid_t pid = 0;
    int fd = -1;  // our end of its socket pair; -1: none waiting
  };
  Expected<pid_t> Launch(const std::vector<std::string>& args);
  Expected<pid_t> HandOff(const std::vector<std::string>& args);
  Expected<pid_t> SpawnProcess(std::vector<std::string> args, int fd3);
  void PrestartLoop();
  void DropWaiting();  // with mu_ held

  std::string stepd_path_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<pid_t> children_;
  Waiting waiting_;
  bool stop_ = false;
  std::thread prestarter_;
};

}  // namespace sluice
