// Running job steps as `scontrol show step` prints them (Slurm 22.05 layout, see
// shared/reference/cli/scontrol_show_step.txt):
//   StepId=12.0 UserId=1000 StartTime=2026-11-30T02:26:02 TimeLimit=UNLIMITED
//      State=RUNNING Partition=gpu NodeList=node[01-02]
//      Nodes=2 CPUs=4 Tasks=4 Name=python Network=(null)
//      TRES=cpu=4,gres/gpu=2,node=2
//      ...
// Only srun steps are listed (the batch step is not tracked as a step).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "client.pb.h"

namespace sluice {

std::string FormatStepRecord(const StepInfo& s);

// scontrol show step[s] [JOB[.STEP]]...: prints the records (one-liner when asked);
// "Job step J.S not found" / "No job steps in the system" as Slurm says them. Returns
// the exit code.
int ShowSteps(CliEnv& env, const std::vector<std::string>& ids, bool oneliner);

}  // namespace sluice
