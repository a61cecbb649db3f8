// Supervisor: the body of sluice-stepd for one batch job. Given <jobdir> holding
// launch.pb it writes its pid file, sets up a ProcessTracker (cgroup or process group)
// with the memory limit, writes and starts the script (job_spawn.h), then runs a
// single-threaded poll loop over a signalfd and the control socket (stepd.sock):
//   - time limit: SIGTERM to every process of the job, SIGKILL after kill_wait_s;
//     final state TIMEOUT
//   - STEPD_CANCEL: the same, final state CANCELLED; STEPD_KILL: SIGKILL at once
//   - STEPD_SIGNAL: deliver a signal (batch_only: to the script process only)
//   - STEPD_SET_TIME_LIMIT: new limit counted from the job start
//   - SIGTERM/SIGINT to stepd itself act as STEPD_CANCEL
// When the script process ends, leftover processes are killed (during a cancel or time
// limit only once KillWait has passed since the SIGTERM: the job's steps' tasks, which
// may handle SIGTERM, get their time even when the shell died at once), status.pb (JobReport:
// COMPLETED / FAILED / CANCELLED / TIMEOUT / OUT_OF_MEMORY, exit_code = WEXITSTATUS,
// term_signal = WTERMSIG, end_time) is written atomically, the agent is notified on
// BatchLaunch.agent_socket (best effort) and the cgroup is removed.
// The node's lease (BatchLaunch.fence_lease, node_common/node_lease.h) running out
// SIGKILLs every process of the job at once; final state NODE_FAIL (the node fenced
// itself: the controller requeues the job).
// Prolog / Epilog (BatchLaunch.prolog/epilog) run before the script starts and after its
// processes are gone (node_scripts.h); failures are flagged in the JobReport.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "node.pb.h"
#include "node_common/job_dir.h"
#include "node_common/node_lease.h"
#include "stepd.pb.h"
#include "stepd/gpu_sampler.h"
#include "stepd/process_tracker.h"

namespace sluice {

struct SupervisorOptions {
  CgroupRoots cgroups;
  int64_t leftover_wait_ms = 5000;  // how long to wait for killed leftovers to vanish
};

class Supervisor {
 public:
  Supervisor(std::string job_dir, SupervisorOptions options, const Clock* clock);
  ~Supervisor();
  // Runs the job to its end; returns stepd's exit code (0 when a status was written).
  int Run();

 private:
  Status Start();
  void Loop();
  void DrainSignals();
  void ReapChildren();
  void AcceptControl();
  void Handle(const StepdRequest& req, StepdReply* reply);
  void Terminate(JobState state, bool immediate);
  void CheckDeadlines();
  int PollTimeoutMs() const;
  void AwaitTerminated();
  void KillLeftovers();
  JobReport MakeReport() const;
  int Finish(const JobReport& report);
  int FailSetup(const Status& st);

  JobDir dir_;
  SupervisorOptions options_;
  const Clock* clock_;
  BatchLaunch launch_;
  int64_t job_id_ = 0;
  std::unique_ptr<ProcessTracker> tracker_;
  pid_t job_pid_ = 0;
  bool job_exited_ = false;
  int wait_status_ = 0;
  int64_t start_mono_ms_ = 0;
  std::optional<GpuSampler> gpu_sampler_;  // the job's GPUs here, when sampled
  int64_t time_limit_s_ = 0;
  JobState forced_state_ = JOB_STATE_UNSPECIFIED;
  int64_t kill_at_mono_ms_ = 0;  // 0 = no SIGKILL pending
  LeaseWatch lease_{""};         // BatchLaunch.fence_lease
  bool fenced_ = false;
  int sigfd_ = -1;
  int lock_fd_ = -1;  // flock on stepd.lock, held for life
  int listen_fd_ = -1;
  // Prolog / Epilog (node_scripts.h): a failed prolog ends the job before it starts
  // with JobReport.prolog_failed; a failed epilog sets JobReport.epilog_failed.
  JobReport WithEpilog(JobReport report) const;
  bool prolog_failed_ = false;
};

}  // namespace sluice
