// StepSupervisor: the body of `sluice-stepd --step <stepdir>`: runs this node's tasks of
// one job step (srun) and streams their I/O back to srun. <stepdir>
// (<spool>/step.<job>.<step>) holds launch.pb (StepLaunch, written by the agent),
// stepd.pid (written first thing, for an agent that restarts) and stepd.log. Flow:
//   1. connect to srun at io_host:io_port and send kHello (node index + io_key);
//   2. fork one process per local task (task_spawn.h): own session, the job's user,
//      the step's cgroup (inside the job's on the batch host) limited to the step's
//      memory here, stdout/stderr on pipes, env from step_env.h;
//   3. single-threaded poll loop: pipe data -> kStdout/kStderr frames, task ends ->
//      kExit (after the task's pipes reached EOF, or 500 ms later when a background
//      process keeps them open), kSignal from srun -> the signal to every task;
//      SIGTERM/SIGINT to stepd -> SIGCONT + SIGTERM to the tasks, SIGKILL KillWait later
//      (StepLaunch.kill_wait_s; StepSupervisorOptions.kill_wait_ms when unset);
//      kStdin from srun -> the task's stdin pipe (empty payload closes it);
//      StepRelaySignal() queued with a signal number as its value (sigqueue) -> that
//      signal to every task (how the agent delivers scancel -s / --signal to steps);
//   4. srun closing the connection (srun died, e.g. SIGTERMed with the batch shell by a
//      requeue or cancel): the same SIGTERM, KillWait, SIGKILL, so the tasks' SIGTERM
//      handlers can finish (Slurm's behaviour); their output is dropped;
//   5. the node's lease (StepLaunch.fence_lease, node_common/node_lease.h) running out:
//      SIGKILL to every task at once (the node fences itself);
//   6. when all tasks ended: leftover processes are killed, kNodeDone is sent, the
//      step directory is removed.
// Returns 0 when the step ran (whatever the tasks' exit codes), 1 on setup failure.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/step_io.h"
#include "node.pb.h"
#include "node_common/node_lease.h"
#include "node_common/relay_signal.h"
#include "stepd/gpu_sampler.h"
#include "stepd/job_spawn.h"
#include "stepd/process_tracker.h"

namespace sluice {

struct StepSupervisorOptions {
  // Tasks run in <job cgroup>/step_<id> where the job directory names the job's cgroup
  // (the batch host), else (other nodes of the job, interactive allocations) in a cgroup
  // of the step's own under `cgroups` (empty roots: none); limited to the step's memory.
  CgroupRoots cgroups;
  int connect_timeout_ms = 10'000;
  int exit_grace_ms = 500;   // pipes held open after a task exited
  int kill_wait_ms = 2'000;  // SIGTERM -> SIGKILL when the launch has no kill_wait_s
};

class StepSupervisor {
 public:
  StepSupervisor(std::string step_dir, StepSupervisorOptions options);
  ~StepSupervisor();
  int Run();

 private:
  struct Task {
    int local_id = 0;
    int rank = 0;
    pid_t pid = 0;
    int out_fd = -1;
    int err_fd = -1;
    bool exited = false;
    int status = 0;
    int64_t exited_ms = 0;
    bool exit_sent = false;
    int in_fd = -1;      // stdin pipe when srun forwards stdin to this task
    std::string in_buf;  // forwarded bytes not yet written
    bool in_eof = false;
    int64_t max_rss_kb = 0;  // accounting: wait4 usage of the task
    int64_t cpu_ms = 0;
    pid_t epilog_pid = 0;  // --task-epilog running for this task (its process group)
    int64_t epilog_deadline_ms = 0;
  };

  Status Start();
  Status Connect();
  void Loop();
  bool Pump(int* fd, FrameType type, uint32_t rank);
  bool ReadSocket();
  void DrainSignals();
  void Reap();
  void StartEpilog(Task* t);
  void SendExits(bool force_all);
  bool AllDone() const;
  void SignalTasks(int sig);
  void Terminate();
  int64_t KillWaitMs() const;
  void KillAll();
  bool Send(FrameType type, uint32_t task, std::string_view payload);
  void FeedStdin(Task* t);

  std::string dir_;
  StepSupervisorOptions options_;
  StepLaunch launch_;
  std::vector<Task> tasks_;
  int sock_ = -1;
  FrameReader reader_;  // frames from srun
  int sigfd_ = -1;
  bool srun_gone_ = false;
  bool srun_gone_handled_ = false;
  bool terminating_ = false;
  int64_t kill_at_ms_ = 0;
  std::unique_ptr<ProcessTracker> cgroup_;  // the step's cgroup (or process-group mode)
  std::optional<GpuSampler> gpu_sampler_;   // the step's GPUs here, when sampled
  bool oom_reported_ = false;
  UserIds user_;          // the job's user, resolved once
  LeaseWatch lease_{""};  // StepLaunch.fence_lease
  bool fenced_ = false;
};

}  // namespace sluice
