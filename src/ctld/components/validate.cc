#include "ctld/components/validate.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_set>

#include "common/array_spec.h"
#include "common/hostlist.h"
#include "common/signal_spec.h"
#include "ctld/components/impossible_request.h"

namespace sluice::ctld {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return b <= 0 ? a : (a + b - 1) / b; }

std::unordered_set<std::string_view> NodeNames(const Config& config) {
  std::unordered_set<std::string_view> out;
  for (const auto& n : config.nodes) out.insert(n.name);
  return out;
}

// Expands a --nodelist/--exclude expression; every name must be a configured node, so
// a list naming more nodes than the cluster has is refused before it is expanded.
Expected<std::vector<std::string>> ExpandNodes(const Config& config, const std::string& expr) {
  if (expr.empty()) return std::vector<std::string>();
  auto names = ExpandHostlist(expr, std::max<size_t>(config.nodes.size(), 1));
  if (!names.ok()) return InvalidArgument(kMsgBadNodeName);
  const auto known = NodeNames(config);
  for (const auto& n : *names) {
    if (!known.count(n)) return InvalidArgument(kMsgBadNodeName);
  }
  return names;
}

Status CheckTimeLimit(const PartitionConfig& part, JobInfo* job) {
  int64_t req = job->spec().time_limit_min();
  if (req < -1 || req > kMaxTimeLimitMin) return InvalidArgument(kMsgBadTimeLimit);
  int64_t limit = req;
  if (req == 0) limit = part.default_time_min > 0 ? part.default_time_min : part.max_time_min;
  if (part.max_time_min >= 0 && (limit < 0 || limit > part.max_time_min)) {
    return InvalidArgument(kMsgBadTimeLimit);
  }
  job->set_time_limit_min(limit);
  return Status::Ok();
}

// Bounds on request numbers, so no product below overflows: no node has a million CPUs
// or GPUs, no job a million nodes or tasks per node, no node 2^40 MB of memory.
constexpr int64_t kMaxCount = int64_t{1} << 20;
constexpr int64_t kMaxMemMb = int64_t{1} << 40;

struct Shape {
  int nodes = 1;
  int tasks = 1;
  int tasks_per_node = 1;
  int cpus_per_node = 1;
};

Expected<Shape> ComputeShape(const Config& config, const PartitionConfig& part, const JobSpec& spec,
                             size_t nodelist_size) {
  if (spec.min_nodes() < 0 || spec.ntasks() < 0 || spec.ntasks_per_node() < 0 ||
      spec.cpus_per_task() < 0) {
    return InvalidArgument(kMsgNodeCount);
  }
  if (spec.min_nodes() > kMaxCount || spec.ntasks() > kMaxCount ||
      spec.ntasks_per_node() > kMaxCount || spec.cpus_per_task() > kMaxCount) {
    return InvalidArgument(kMsgNodeConfig);
  }
  int cpt = std::max(1, spec.cpus_per_task());
  Shape s;
  s.nodes = spec.min_nodes();
  if (s.nodes == 0) {
    if (spec.ntasks() > 0 && spec.ntasks_per_node() > 0) {
      s.nodes = static_cast<int>(CeilDiv(spec.ntasks(), spec.ntasks_per_node()));
    } else if (spec.ntasks() > 0 && !spec.overcommit()) {
      s.nodes = static_cast<int>(
          CeilDiv(int64_t{spec.ntasks()} * cpt, std::max(1, LargestIn(config, part, "").cpus)));
    }
    s.nodes = std::max(1, s.nodes);
  }
  s.nodes = std::max<int>(s.nodes, static_cast<int>(nodelist_size));
  if (part.max_nodes > 0 && s.nodes > part.max_nodes) return InvalidArgument(kMsgNodeConfig);
  int64_t tasks =
      spec.ntasks() > 0 ? spec.ntasks() : int64_t{s.nodes} * std::max(1, spec.ntasks_per_node());
  if (tasks > kMaxCount) return InvalidArgument(kMsgNodeConfig);
  s.tasks = static_cast<int>(tasks);
  s.tasks_per_node = spec.ntasks_per_node() > 0
                         ? spec.ntasks_per_node()
                         : std::max(1, static_cast<int>(CeilDiv(s.tasks, s.nodes)));
  // --overcommit: the CPUs of one task per node, however many tasks run there.
  int64_t cpus = int64_t{spec.overcommit() ? 1 : s.tasks_per_node} * cpt;
  if (cpus > kMaxCount) return InvalidArgument(kMsgNodeConfig);
  s.cpus_per_node = static_cast<int>(cpus);
  return s;
}

Status BadGres(const GresRequest& g) {
  std::string text = g.name() + (g.type().empty() ? "" : ":" + g.type());
  text += ":" + std::to_string(g.count());
  return InvalidArgument("invalid gres specified: " + text + "\n" + kMsgBadGres);
}

Status ComputeGpus(const JobSpec& spec, const Shape& shape, JobInfo* job) {
  int64_t per_node = 0;
  std::string type = spec.gpu_type();
  for (const auto& g : spec.gres_per_node()) {
    if (g.name() != "gpu" || g.count() < 0 || g.count() > kMaxCount) return BadGres(g);
    per_node += g.count();
    if (type.empty()) type = g.type();
  }
  if (spec.gpus_total() < 0 || spec.gpus_per_task() < 0 || spec.gpus_total() > kMaxCount ||
      spec.gpus_per_task() > kMaxCount) {
    return InvalidArgument(kMsgBadGres);
  }
  if (spec.gpus_total() > 0) per_node = CeilDiv(spec.gpus_total(), shape.nodes);
  if (spec.gpus_per_task() > 0) per_node = spec.gpus_per_task() * shape.tasks_per_node;
  if (per_node > kMaxCount) return InvalidArgument(kMsgBadGres);
  job->set_gpus_per_node(static_cast<int32_t>(per_node));
  job->set_gpu_type(type);
  return Status::Ok();
}

Status ComputeMemory(const Config& config, const PartitionConfig& part, const Shape& shape,
                     JobInfo* job) {
  const JobSpec& spec = job->spec();
  if (spec.mem_per_node_mb() < 0 || spec.mem_per_cpu_mb() < 0 || spec.mem_per_gpu_mb() < 0 ||
      spec.mem_per_node_mb() > kMaxMemMb || spec.mem_per_cpu_mb() > kMaxMemMb ||
      spec.mem_per_gpu_mb() > kMaxMemMb) {
    return ImpossibleRequest(kMsgMemory);
  }
  int64_t mem = 0;
  if (spec.mem_whole_node()) {  // --mem=0: every node's whole memory (the smallest's)
    for (const auto& name : part.nodes) {
      const NodeConfig* n = config.FindNode(name);
      if (n && (mem == 0 || n->real_memory_mb < mem)) mem = n->real_memory_mb;
    }
  } else if (spec.mem_per_node_mb() > 0) {
    mem = spec.mem_per_node_mb();
  } else if (spec.mem_per_cpu_mb() > 0) {
    mem = spec.mem_per_cpu_mb() * shape.cpus_per_node;
  } else if (spec.mem_per_gpu_mb() > 0 && job->gpus_per_node() > 0) {
    mem = spec.mem_per_gpu_mb() * job->gpus_per_node();
  } else if (!spec.exclusive()) {
    mem = config.def_mem_per_cpu_mb * shape.cpus_per_node;
  }
  RETURN_IF_ERROR(CheckMemoryFit(mem, LargestIn(config, part, "")));
  job->set_mem_per_node_mb(mem);
  return Status::Ok();
}

Status CheckScript(const JobSpec& spec) {
  if (spec.interactive()) return Status::Ok();  // salloc / srun: no script
  if (spec.script().empty()) return InvalidArgument("Batch script is empty");
  if (spec.script().rfind("#!", 0) != 0) {
    return InvalidArgument(
        "This does not look like a batch script. The first line must start with #! "
        "followed by the path to an interpreter.");
  }
  return Status::Ok();
}

// Requests no node of the partition could ever hold (impossible_request.h).
Status CheckFits(const Config& config, const PartitionConfig& part, const Shape& shape,
                 const JobInfo& job) {
  const JobSpec& spec = job.spec();
  RETURN_IF_ERROR(CheckFeatures(config, spec.constraint()));
  const LargestNode largest = LargestIn(config, part, job.gpu_type());
  RETURN_IF_ERROR(CheckCpusFit(spec, shape.tasks_per_node, shape.cpus_per_node, part, largest));
  RETURN_IF_ERROR(CheckGpusFit(job.gpus_per_node(), job.gpu_type(), part, largest));
  RETURN_IF_ERROR(CheckMinCpusFit(spec, part, largest));
  return CheckTmpDiskFit(spec, part, largest);
}

}  // namespace

int PartitionPriorityTier(const Config& config, const std::string& partition) {
  const PartitionConfig* p = LookupPartition(config, partition);
  return p ? p->priority_tier : 0;
}

const PartitionConfig* LookupPartition(const Config& config, const std::string& name) {
  for (const auto& p : config.partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PartitionConfig* LookupDefaultPartition(const Config& config) {
  for (const auto& p : config.partitions) {
    if (p.is_default) return &p;
  }
  return config.partitions.size() == 1 ? &config.partitions[0] : nullptr;
}

Status NormalizeJob(const Config& config, JobInfo* job) {
  JobSpec* spec = job->mutable_spec();
  RETURN_IF_ERROR(CheckScript(*spec));
  if (!spec->signal().empty()) RETURN_IF_ERROR(ParseSignalSpec(spec->signal()).status());
  // MaxArraySize before anything is expanded for the array (array_dep_ops.cc does).
  if (!spec->array_spec().empty()) {
    RETURN_IF_ERROR(ParseArrayRanges(spec->array_spec(), config.max_array_size).status());
  }
  const PartitionConfig* part = spec->partition().empty()
                                    ? LookupDefaultPartition(config)
                                    : LookupPartition(config, spec->partition());
  if (!part && spec->partition().empty()) return InvalidArgument(kMsgNoPartition);
  if (!part) {
    return InvalidArgument("invalid partition specified: " + spec->partition() + "\n" +
                           kMsgInvalidPartition);
  }
  spec->set_partition(part->name);
  RETURN_IF_ERROR(CheckTimeLimit(*part, job));
  ASSIGN_OR_RETURN(auto required, ExpandNodes(config, spec->nodelist()));
  ASSIGN_OR_RETURN(auto excluded, ExpandNodes(config, spec->exclude()));
  const std::unordered_set<std::string_view> in_part(part->nodes.begin(), part->nodes.end());
  const std::unordered_set<std::string_view> out(excluded.begin(), excluded.end());
  for (const auto& n : required) {
    if (!in_part.count(n) || out.count(n)) return InvalidArgument(kMsgNodeConfig);
  }
  ASSIGN_OR_RETURN(Shape shape, ComputeShape(config, *part, *spec, required.size()));
  RETURN_IF_ERROR(ComputeGpus(*spec, shape, job));
  if (spec->cpus_per_gpu() < 0) return InvalidArgument(kMsgNodeCount);
  if (spec->cpus_per_gpu() > 0) {  // --cpus-per-gpu: CPUs follow the GPUs on each node
    if (spec->cpus_per_task() > 0) return InvalidArgument(kMsgCpusPerGpu);
    const int64_t cpus = int64_t{job->gpus_per_node()} * spec->cpus_per_gpu();
    if (cpus > kMaxCount) return InvalidArgument(kMsgNodeConfig);
    shape.cpus_per_node = static_cast<int>(std::max<int64_t>(shape.cpus_per_node, cpus));
  }
  if (int64_t{shape.cpus_per_node} * shape.nodes > INT32_MAX)
    return InvalidArgument(kMsgNodeConfig);
  RETURN_IF_ERROR(CheckFits(config, *part, shape, *job));
  RETURN_IF_ERROR(ComputeMemory(config, *part, shape, job));
  if (spec->name().empty()) spec->set_name("sbatch");
  if (spec->work_dir().empty()) spec->set_work_dir("/");
  job->set_num_nodes(shape.nodes);
  job->set_num_tasks(shape.tasks);
  job->set_num_cpus(shape.cpus_per_node * shape.nodes);
  return Status::Ok();
}

// How long a --switches=N job waits for N leaf switches when it gives no max-time
// (Slurm's max_switch_wait default).
constexpr int64_t kDefaultSwitchWaitS = 300;

Expected<sched::JobRequest> BuildRequest(const Config& config, const JobInfo& job) {
  const JobSpec& spec = job.spec();
  const PartitionConfig* part = LookupPartition(config, spec.partition());
  if (!part) return InvalidArgument(kMsgInvalidPartition);
  sched::JobRequest r;
  r.job_id = job.job_id();
  r.priority = job.priority();
  r.submit_time = job.submit_time();
  r.num_nodes = std::max(1, job.num_nodes());
  r.tasks_per_node = spec.ntasks_per_node() > 0
                         ? spec.ntasks_per_node()
                         : std::max(1, static_cast<int>(CeilDiv(job.num_tasks(), r.num_nodes)));
  r.cpus_per_node =
      std::max((spec.overcommit() ? 1 : r.tasks_per_node) * std::max(1, spec.cpus_per_task()),
               job.num_cpus() / r.num_nodes);  // num_cpus includes --cpus-per-gpu
  r.mem_per_node_mb = job.mem_per_node_mb();
  r.gpus_per_node = job.gpus_per_node();
  r.gpu_type = job.gpu_type();
  r.exclusive = spec.exclusive();
  if (part->nodes.size() != config.nodes.size() || spec.tmp_disk_mb() > 0 ||
      spec.min_cpus_per_node() > 0) {
    for (const std::string& name : part->nodes) {  // --tmp, --mincpus: only nodes that have them
      const NodeConfig* n = config.FindNode(name);
      if (n && n->tmp_disk_mb >= spec.tmp_disk_mb() && n->cpus >= spec.min_cpus_per_node())
        r.allowed_nodes.push_back(name);
    }
  }
  ASSIGN_OR_RETURN(r.required_nodes, ExpandNodes(config, spec.nodelist()));
  ASSIGN_OR_RETURN(r.excluded_nodes, ExpandNodes(config, spec.exclude()));
  r.constraint = spec.constraint();
  r.time_limit_s = job.time_limit_min() > 0 ? job.time_limit_min() * 60 : 0;
  r.reservation = spec.reservation();
  r.max_switches = spec.max_switches();
  r.switches_wait_s = spec.switches_wait_s() > 0 ? spec.switches_wait_s() : kDefaultSwitchWaitS;
  r.het_job_id = job.het_job_id();
  r.het_size = job.het_size();
  return r;
}

}  // namespace sluice::ctld
