// Step resources inside an allocation: which of the job's CPUs and GPUs on each step
// node a new step (srun) takes, given the job's steps already running. Pure; tested in
// step_resources_test.cc. Semantics follow srun(1) of Slurm 22.05:
//   - CPUs: by default a step takes ALL the job's CPUs on each of its nodes; with
//     --exact (implied by an explicit -c) it takes tasks x cpus-per-task of them;
//   - GPUs: --gpus-per-task (tasks x N) or a step --gres=gpu:N/--gpus-per-node (N per
//     node) take that many; a step that asks for none gets every job GPU of the node
//     no other step holds (possibly none; it never waits for implicit GPUs);
//   - --overlap: shares everything with every other step: never waits, holds nothing
//     (it still gets the ids it asked for, counted from the job's first ones);
//   - the batch script itself holds nothing.
// Errors: kResourceExhausted "Requested nodes are busy" when other steps hold what is
// needed now (srun retries until they end); kInvalidArgument when the allocation can
// never satisfy it ("More processors requested than permitted", kMsgStepNodeConfig).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/status.h"
#include "ctld/step_layout.h"
#include "types.pb.h"

namespace sluice::ctld {

inline constexpr char kMsgNodesBusy[] = "Requested nodes are busy";
inline constexpr char kMsgTooManyCpus[] = "More processors requested than permitted";

struct StepNodeUse {
  std::string node;
  std::vector<int> cpu_ids;
  std::vector<int> gpu_ids;
};

// A running step as the controller tracks it (in memory only).
struct ActiveStep {
  int step_id = 0;
  std::string name;
  int64_t start_time = 0;          // unix seconds
  int64_t last_seen_ms = 0;        // srun's last keepalive (controller clock)
  bool overlap = false;
  int ntasks = 0;
  std::vector<StepNodeUse> use;    // per step node, node index order
};

Expected<std::vector<StepNodeUse>> PickStepResources(const JobInfo& job, const StepLayout& layout,
                                                     const StepRequest& req,
                                                     const std::vector<ActiveStep>& running);

}  // namespace sluice::ctld
