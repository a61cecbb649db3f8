// Submit-time refusals of requests that no node of the partition could ever satisfy
// (Slurm leaves many of them PENDING forever). Each message is two lines: what is
// impossible and what the largest node offers, then Slurm's own error line, which the
// commands print last ("sbatch: error: Batch job submission failed: Requested node
// configuration is not available"):
//   CPU count per task can not be satisfied: --cpus-per-task=64, the largest node in
//   partition gpu has 16 CPUs
//   CPU count per node can not be satisfied: 32 CPUs on one node (2 tasks x 16 CPUs per
//   task), the largest node in partition gpu has 16 CPUs
//   GPU count per node can not be satisfied: 9 GPUs (gpu) on one node, the largest node
//   in partition gpu has 8
//   TmpDisk can not be satisfied: --tmp=2048M on one node, the largest TmpDisk of a node
//   in partition gpu is 1024M
// Memory keeps Slurm's exact words ("Memory specification can not be satisfied").
// Constraint names no configured node has: "invalid feature specified: nvme" +
// "Invalid feature specification". Pure functions of the configuration.
#pragma once

#include <string>

#include "common/config.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice::ctld {

inline constexpr char kMsgInvalidFeature[] = "Invalid feature specification";

// `detail` + "\n" + Slurm's "Requested node configuration is not available".
Status ImpossibleRequest(const std::string& detail);

// The most each resource offers on one node of the partition (each maximum taken
// separately). GPUs count only those of `gpu_type` when it is set.
struct LargestNode {
  int cpus = 0;
  int64_t mem_mb = 0;
  int64_t tmp_disk_mb = 0;
  int64_t gpus = 0;
};
LargestNode LargestIn(const Config& config, const PartitionConfig& part,
                      const std::string& gpu_type);

// cpus_per_node / gpus_per_node / tmp per node as NormalizeJob computed them.
Status CheckCpusFit(const JobSpec& spec, int tasks_per_node, int cpus_per_node,
                    const PartitionConfig& part, const LargestNode& largest);
Status CheckGpusFit(int64_t gpus_per_node, const std::string& gpu_type, const PartitionConfig& part,
                    const LargestNode& largest);
Status CheckMinCpusFit(const JobSpec& spec, const PartitionConfig& part,
                       const LargestNode& largest);
Status CheckTmpDiskFit(const JobSpec& spec, const PartitionConfig& part,
                       const LargestNode& largest);
Status CheckMemoryFit(int64_t mem_per_node_mb, const LargestNode& largest);
// --constraint: parses, and every feature it names exists on some configured node.
Status CheckFeatures(const Config& config, const std::string& constraint);

}  // namespace sluice::ctld
