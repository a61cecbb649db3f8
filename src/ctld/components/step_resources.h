// Step resources inside an allocation: which of the job's CPUs and GPUs on each step
// node a new step (srun) takes, given the job's steps already running. Pure; tested in
// step_resources_test.cc. Semantics follow srun(1) of Slurm 22.05:
//   - CPUs: by default a step takes ALL the job's CPUs on each of its nodes; with
//     --exact (implied by an explicit -c) it takes tasks x cpus-per-task of them; with
//     --cpus-per-gpu=N, N x the GPUs it takes on the node (its explicit GPUs, else all
//     the job's GPUs there; none -> kMsgStepNodeConfig; with -c -> kMsgStepCpusPerGpu);
//   - GPUs: --gpus-per-task (tasks x N) or a step --gres=gpu:N/--gpus-per-node (N per
//     node) take that many; a step that asks for none gets every job GPU of the node
//     no other step holds (possibly none; it never waits for implicit GPUs);
//   - --overlap: shares everything with every other step: never waits, holds nothing
//     (it still gets the ids it asked for, counted from the job's first ones);
//   - memory (the job's per-node memory, NodeAlloc.mem_mb): a step with --mem=X takes X
//     MB on each of its nodes, --mem-per-cpu=Y takes Y x the CPUs it gets there, an
//     explicit --mem=0 takes all the job memory no other step holds; a step without
//     either may use all the job's memory but holds none and never waits for it (as
//     srun(1) says for steps: all the job's memory unless the step asks for some).
//     More than the job has on a node fails (kMsgTaskMemory); more than is free now
//     waits like CPUs. A job with no memory (mem_mb 0) is not accounted;
//   - the batch script itself holds nothing.
// Errors: kResourceExhausted "Requested nodes are busy" when other steps hold what is
// needed now (srun retries until they end); kInvalidArgument when the allocation can
// never satisfy it ("More processors requested than permitted", kMsgStepNodeConfig,
// "Memory required by task is not available").
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/status.h"
#include "ctld/components/step_layout.h"
#include "types.pb.h"

namespace sluice::ctld {

inline constexpr char kMsgNodesBusy[] = "Requested nodes are busy";
inline constexpr char kMsgTooManyCpus[] = "More processors requested than permitted";
inline constexpr char kMsgTaskMemory[] = "Memory required by task is not available";
inline constexpr char kMsgStepCpusPerGpu[] = "--cpus-per-gpu is incompatible with --cpus-per-task";

struct StepNodeUse {
  std::string node;
  std::vector<int> cpu_ids;
  std::vector<int> gpu_ids;
  int64_t mem_mb = 0;  // memory the step holds on the node (0: none asked for)
};

// A running step as the controller tracks it (in memory only).
struct ActiveStep {
  int step_id = 0;
  std::string name;
  int64_t start_time = 0;    // unix seconds
  int64_t last_seen_ms = 0;  // srun's last keepalive (controller clock)
  bool overlap = false;
  int ntasks = 0;
  std::vector<StepNodeUse> use;  // per step node, node index order
};

// The job's nodes on which running (not --overlap) steps hold every CPU of the job: a
// step that does not name its nodes is laid out on the others first (PlanStepLayout).
std::set<std::string> FullyHeldNodes(const JobInfo& job, const std::vector<ActiveStep>& running);

Expected<std::vector<StepNodeUse>> PickStepResources(const JobInfo& job, const StepLayout& layout,
                                                     const StepRequest& req,
                                                     const std::vector<ActiveStep>& running);

}  // namespace sluice::ctld
