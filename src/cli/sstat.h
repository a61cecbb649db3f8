// sstat: what the tasks of running job steps use now. The controller finds the step's
// nodes and asks their agents (the StepUsage rpc), which read each task's processes from
// /proc (node_common/proc_usage.h). Slurm's fields, layout and messages: -j/--jobs
// JOB[.STEP][,...] (or as arguments; without a step the lowest-numbered running step,
// every running step with -a/--allsteps), -o/--format/--fields, -e/--helpformat,
// -i/--pidformat (JobID,Nodelist,Pids), -n/--noheader, -p/--parsable, -P/--parsable2,
// --noconvert (accepted), -v, -V/--version, --help, --usage.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/sacct_format.h"
#include "client.pb.h"

namespace sluice {

int RunSstat(const std::vector<std::string>& args, CliEnv& env);

// Every sstat field in Slurm's order (what -e lists).
const std::vector<SacctField>& SstatFields();

// One field of step `job_step` ("12.0") from its tasks' usage.
std::string SstatValue(const std::string& field, const std::string& job_step,
                       const StepUsageReply& u);

}  // namespace sluice
