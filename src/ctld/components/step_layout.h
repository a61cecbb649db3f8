// Step task layout: which nodes of a running job's allocation a step (srun) uses and
// which task ranks run where. Pure; unit-tested in step_layout_test.cc.
//   - nodes are taken in hostlist order of the allocation (-w restricts them);
//   - no -N/-n/--ntasks-per-node: the job's own layout (NodeAlloc.ntasks per node, at
//     least 1) on all its nodes, as srun inside `sbatch -N2 --ntasks-per-node=2` does;
//   - -N only: one task per node; -n only: min(n, nodes) nodes; -n below -N lowers -N;
//   - block distribution fills nodes in order (--ntasks-per-node caps each node,
//     otherwise tasks are spread evenly, the first nodes taking the remainder);
//     cyclic deals ranks round-robin over the same per-node counts.
// Errors (kInvalidArgument, Slurm's wording): more nodes than the allocation has, a
// -w node outside it (or a -w list naming more nodes than it has), more tasks than
// --ntasks-per-node allows, --gpus-per-task beyond a node's GPUs; more than
// kMaxStepTasksPerNode tasks per node (Slurm's MaxTasksPerNode default) ->
// kMsgBadTaskCount, checked before anything is sized by the task count.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice::ctld {

inline constexpr char kMsgStepNodeConfig[] = "Requested node configuration is not available";
inline constexpr char kMsgBadTaskCount[] = "Task count specification invalid";
inline constexpr int kMaxStepTasksPerNode = 512;

struct StepLayout {
  std::vector<int> alloc_index;            // per step node: index into job.alloc()
  std::vector<std::string> nodes;          // per step node: name
  std::vector<int> tasks_per_node;         // per step node
  std::vector<std::vector<int>> task_ids;  // per step node: global ranks, ascending
  std::vector<int> task_node;              // rank -> step node index
  int ntasks = 0;
  int ntasks_per_node = 0;  // effective --ntasks-per-node (0 = none)
  bool cyclic = false;
};

// `busy`: nodes to use last when the step does not name its nodes (every CPU of the job
// there is held by other steps), so that `srun -n1 --exclusive` steps spread out.
Expected<StepLayout> PlanStepLayout(const JobInfo& job, const StepRequest& req,
                                    const std::set<std::string>& busy = {});

}  // namespace sluice::ctld
