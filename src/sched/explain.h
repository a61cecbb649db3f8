// Why a pending job is not running, in words and numbers (`sluice why`, Explanation= in
// `scontrol show job`): "needs 2 nodes with 8 free GPUs each (16 GPUs); 12 GPUs are idle
// now and 1 node has 8 free; planned start 2026-12-04T14:05:00 (in 12 min) when job 812
// ends", "behind 3 higher-priority jobs in partition gpu (priority 1042 vs 1310, 1200,
// 1105)", "account vision at its GrpTRES=gres/gpu=64 limit (64 in use, this job asks 16)",
// "can never run: asks 9 GPUs per node, the largest node in partition gpu has 8".
//
// Pure: the controller gathers the inputs from its tables and the last scheduling pass
// (the reason code and planned start the scheduler gave the job); `format_time` turns an
// epoch second into the time the caller prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sched/types.h"

namespace sluice::sched {

struct ExplainInput {
  JobRequest job;
  std::string partition;
  std::string reason;                      // the job's pending reason code
  int64_t planned_start = 0;               // from the last plan (0 = none)
  std::vector<std::string> planned_nodes;  // the nodes that plan reserved for it
  int64_t begin_time = 0;                  // sbatch --begin
  struct Ahead {
    int64_t job_id = 0;
    int64_t priority = 0;
  };
  std::vector<Ahead> ahead;  // the pending jobs of its partition considered before it,
  int64_t ahead_count = 0;   // in that order (the first few) and how many there are
  std::string queue_order;   // the order they were considered in ("" = priority order)
  // The dependency terms still in its way, in words ("afterok:811 (811 RUNNING)").
  std::vector<std::string> dependencies;
  // Whether the reader may see job `id` named (PrivateData=jobs); unset: every job. A
  // running job it may not see is "a running job".
  std::function<bool(int64_t)> names_job;
};

// `snapshot`: the cluster now (nodes, running jobs with their ends, reservations, and the
// limits with the job's scopes). Never empty.
std::string Explain(const ClusterSnapshot& snapshot, const ExplainInput& in, int64_t now,
                    const std::function<std::string(int64_t)>& format_time);

}  // namespace sluice::sched
