// srun: run a parallel job step.
//   RunSrun({"-N2", "-n4", "-l", "hostname"}, env) -> exit code
// Inside an allocation (--jobid, else $SLURM_JOB_ID / $SLURM_JOBID) it creates step
// JOBID.N there (ClientApi LaunchStep); otherwise it first gets an interactive
// allocation (allocation.h) and releases it at exit. The tasks' output streams back
// through a StepIoServer; the exit code is the highest task exit code (128+signal for
// signalled tasks) with Slurm's "srun: error: node: task N: ..." lines.
// salloc: get an allocation, run a command (default $SHELL, else /bin/sh) with the
// allocation's SLURM_* variables, release the allocation when it exits.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSrun(const std::vector<std::string>& args, CliEnv& env);
int RunSalloc(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
