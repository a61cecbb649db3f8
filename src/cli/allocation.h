// Interactive allocations for salloc and standalone srun: submit a JobSpec with
// `interactive` set, wait until it runs (printing Slurm's "queued and waiting for
// resources" once when it has to wait), and release it at the end. Also the
// environment salloc gives its command (Slurm's env_array_for_job subset).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/srun_options.h"
#include "common/status.h"
#include "types.pb.h"

#include <signal.h>

namespace sluice {

// Blocks SIGINT/SIGTERM/SIGHUP/SIGQUIT and reads them from a signalfd (fd()); restores
// the previous mask when destroyed. Children should start with old_mask().
class SignalWatch {
 public:
  SignalWatch();
  ~SignalWatch();
  int fd() const { return fd_; }
  const sigset_t& old_mask() const { return old_; }

 private:
  int fd_ = -1;
  sigset_t old_;
};

// srun/salloc front end (srun.cc): options, --help/--version, connection. Returns 0 to
// go on, -1 when done successfully (help), else the exit code.
int PrepareAllocCommand(const std::string& prog, const std::vector<std::string>& args,
                        SrunOptions* o, ClientApiInterface** api, CliEnv& env);

// The JobSpec of the allocation `o` asks for (work dir, env per --export, name).
Expected<JobSpec> AllocationSpec(const SrunOptions& o, const std::string& default_name,
                                 CliEnv& env);

// Submits and waits until RUNNING. `prog` prefixes messages ("srun", "salloc").
// A signal on `signal_fd` (signalfd; -1 = none) while waiting cancels the job, and so
// does --immediate: `immediate_s` >= 0 gives up (cancels, "Unable to allocate resources:
// Requested nodes are busy") when the job is still pending after that many seconds.
// Errors are already printed; the Status carries the exit code's reason.
Expected<JobInfo> Allocate(const std::string& prog, JobSpec spec, ClientApiInterface* api,
                           CliEnv& env, int signal_fd, int immediate_s = -1);

// -v's line about a granted allocation, as Slurm prints it (scripts take the id from it):
// "srun: jobid 12: nodes(2):`node[01-02]', cpu counts: 16(x2)\n".
std::string AllocationReport(const std::string& prog, const JobInfo& job);

// Ends the allocation (best effort; errors are printed).
void Release(const std::string& prog, int64_t job_id, int exit_code, ClientApiInterface* api,
             CliEnv& env);

// SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NNODES, SLURM_TASKS_PER_NODE, ... for the
// command salloc runs (and srun steps inside it).
std::vector<std::string> AllocationEnv(const JobInfo& job, const std::string& cluster_name);

// Job state now, or JOB_STATE_UNSPECIFIED when it cannot be read.
JobState CurrentState(int64_t job_id, ClientApiInterface* api);

}  // namespace sluice
