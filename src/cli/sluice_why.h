// `sluice why JOBID...`: why each job is not running, in words and numbers, from the
// controller's last plan (GetJobsRequest.explain; sched/explain.h). One line per job:
//   Job 812 (train) is PENDING (Resources): needs 2 nodes with 8 free GPUs each ...
//   Job 811 (prep) is RUNNING on gpu[1-2] since 2026-12-04T13:05:00
//   Job 810 (eval) is COMPLETED, exit code 0:0
// An id that names no job: "Invalid job id specified", exit 1.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSluiceWhy(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
