// Forks one task of a job step (see step_supervisor.h). The child starts in the job's
// cgroup(s) when there are (ProcessTracker::ForkChild), starts its own session,
// resets signals, becomes the job's user, applies SLURM_UMASK, changes to the step's
// working directory (or /tmp, with an error line), applies --cpu-bind (cpu_bind.h),
// reads srun's forwarded stdin (a pipe), the -i file, or /dev/null, writes to the given
// pipe ends, and execs argv[0] searched on the task's own PATH. An exec failure prints
// Slurm's "slurmstepd: error: execve(): <cmd>: <reason>" and exits 2.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/status.h"
#include "node.pb.h"
#include "stepd/job_spawn.h"
#include "stepd/process_tracker.h"

namespace sluice {

struct TaskPipes {
  int out_read = -1;
  int err_read = -1;
  int in_write = -1;  // when the task's stdin is fed by srun (StepLaunch.stdin_ranks)
};

// Returns the task's pid; `pipes` receives the parent's (non-blocking) read ends.
// `user`: the job's user resolved once by the caller (ResolveUser), so that the forked
// children do no NSS lookups; null = resolve in the child.
// The task is forked into `cgroup`'s cgroup(s) (ProcessTracker::ForkChild).
Expected<pid_t> SpawnTask(const StepLaunch& launch, int local_id, const ProcessTracker& cgroup,
                          TaskPipes* pipes, const UserIds* user = nullptr);

}  // namespace sluice
