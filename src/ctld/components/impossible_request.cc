#include "ctld/components/impossible_request.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/slurm_format.h"
#include "ctld/components/validate.h"
#include "sched/constraint.h"

namespace sluice::ctld {
namespace {

int64_t GpusOfType(const NodeConfig& n, const std::string& type) {
  if (type.empty()) return static_cast<int64_t>(n.gpus.size());
  return std::count_if(n.gpus.begin(), n.gpus.end(),
                       [&](const GpuDef& g) { return g.type == type; });
}

}  // namespace

Status ImpossibleRequest(const std::string& detail) {
  return InvalidArgument(detail + "\n" + kMsgNodeConfig);
}

LargestNode LargestIn(const Config& config, const PartitionConfig& part,
                      const std::string& gpu_type) {
  LargestNode out;
  for (const std::string& name : part.nodes) {
    const NodeConfig* n = config.FindNode(name);
    if (!n) continue;
    out.cpus = std::max(out.cpus, n->cpus);
    out.mem_mb = std::max(out.mem_mb, n->real_memory_mb);
    out.tmp_disk_mb = std::max(out.tmp_disk_mb, n->tmp_disk_mb);
    out.gpus = std::max(out.gpus, GpusOfType(*n, gpu_type));
  }
  return out;
}

Status CheckCpusFit(const JobSpec& spec, int tasks_per_node, int cpus_per_node,
                    const PartitionConfig& part, const LargestNode& largest) {
  if (cpus_per_node <= largest.cpus) return Status::Ok();
  const int cpt = std::max(1, spec.cpus_per_task());
  if (cpt > largest.cpus) {
    return ImpossibleRequest(fmt::format(
        "CPU count per task can not be satisfied: --cpus-per-task={}, the largest node in "
        "partition {} has {} CPUs",
        cpt, part.name, largest.cpus));
  }
  const std::string how = spec.cpus_per_gpu() > 0 && cpus_per_node > tasks_per_node * cpt
                              ? fmt::format("{} CPUs per GPU", spec.cpus_per_gpu())
                              : fmt::format("{} tasks x {} CPUs per task", tasks_per_node, cpt);
  return ImpossibleRequest(fmt::format(
      "CPU count per node can not be satisfied: {} CPUs on one node ({}), the largest node "
      "in partition {} has {} CPUs",
      cpus_per_node, how, part.name, largest.cpus));
}

Status CheckGpusFit(int64_t gpus_per_node, const std::string& gpu_type, const PartitionConfig& part,
                    const LargestNode& largest) {
  if (gpus_per_node <= largest.gpus) return Status::Ok();
  const std::string what = gpu_type.empty() ? "gpu" : "gpu:" + gpu_type;
  return ImpossibleRequest(fmt::format(
      "GPU count per node can not be satisfied: {} GPUs ({}) on one node, the largest node "
      "in partition {} has {}",
      gpus_per_node, what, part.name, largest.gpus));
}

Status CheckMinCpusFit(const JobSpec& spec, const PartitionConfig& part,
                       const LargestNode& largest) {
  if (spec.min_cpus_per_node() <= largest.cpus) return Status::Ok();
  return ImpossibleRequest(fmt::format(
      "CPU count per node can not be satisfied: --mincpus={}, the largest node in partition {} "
      "has {} CPUs",
      spec.min_cpus_per_node(), part.name, largest.cpus));
}

Status CheckTmpDiskFit(const JobSpec& spec, const PartitionConfig& part,
                       const LargestNode& largest) {
  if (spec.tmp_disk_mb() <= largest.tmp_disk_mb) return Status::Ok();
  return ImpossibleRequest(fmt::format(
      "TmpDisk can not be satisfied: --tmp={} on one node, the largest TmpDisk of a node in "
      "partition {} is {}",
      FormatMemoryMb(spec.tmp_disk_mb()), part.name, FormatMemoryMb(largest.tmp_disk_mb)));
}

Status CheckMemoryFit(int64_t mem_per_node_mb, const LargestNode& largest) {
  if (mem_per_node_mb <= largest.mem_mb) return Status::Ok();
  return ImpossibleRequest(kMsgMemory);
}

Status CheckFeatures(const Config& config, const std::string& constraint) {
  if (constraint.empty()) return Status::Ok();
  auto expr = sched::FeatureExpr::Parse(constraint);
  if (!expr.ok()) return InvalidArgument(expr.status().message() + "\n" + kMsgInvalidFeature);
  for (const std::string& name : expr->Names()) {
    const bool known =
        std::any_of(config.nodes.begin(), config.nodes.end(), [&](const NodeConfig& n) {
          return std::find(n.features.begin(), n.features.end(), name) != n.features.end();
        });
    if (!known)
      return InvalidArgument("invalid feature specified: " + name + "\n" + kMsgInvalidFeature);
  }
  return Status::Ok();
}

}  // namespace sluice::ctld
