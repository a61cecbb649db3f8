#include "stepd/batch_env.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "common/step_io.h"
#include "stepd/env_list.h"
#include "stepd/step_env.h"

namespace sluice {
namespace {

std::string JoinInts(const google::protobuf::RepeatedField<int32_t>& v) {
  std::string out;
  for (int x : v) {
    if (!out.empty()) out += ",";
    out += std::to_string(x);
  }
  return out;
}

// Nodes of the allocation in hostlist order, with their NodeAlloc.
std::vector<const NodeAlloc*> SortedAlloc(const JobInfo& job, std::string* nodelist) {
  std::vector<std::string> names;
  std::map<std::string, const NodeAlloc*> by_name;
  for (const NodeAlloc& a : job.alloc()) {
    names.push_back(a.node());
    by_name[a.node()] = &a;
  }
  *nodelist = CompressHostlistSorted(names);
  std::vector<const NodeAlloc*> out;
  auto expanded = ExpandHostlist(*nodelist);
  if (expanded.ok()) {
    for (const std::string& n : *expanded) {
      auto it = by_name.find(n);
      if (it != by_name.end()) out.push_back(it->second);
    }
  }
  if (out.size() != by_name.size()) {  // fall back to name order
    out.clear();
    for (auto& [n, a] : by_name) out.push_back(a);
  }
  return out;
}

// CPUs and tasks of each node in `nodes` (at least one each), for SLURM_JOB_CPUS_PER_NODE
// and SLURM_TASKS_PER_NODE.
void CountPerNode(const std::vector<const NodeAlloc*>& nodes, std::vector<int64_t>* cpus,
                  std::vector<int64_t>* tasks) {
  for (const NodeAlloc* a : nodes) {
    cpus->push_back(std::max(1, a->cpu_ids_size()));
    tasks->push_back(std::max(1, a->ntasks()));
  }
}

void SetNodeVars(const BatchLaunch& l, const BatchEnvContext& ctx, EnvList* env) {
  const JobInfo& job = l.job();
  std::string nodelist;
  std::vector<const NodeAlloc*> nodes = SortedAlloc(job, &nodelist);
  if (nodes.empty()) {
    nodelist = ctx.node_name;
    nodes.push_back(&l.local());
  }
  std::vector<int64_t> cpus, tasks;
  CountPerNode(nodes, &cpus, &tasks);
  std::string nnodes = std::to_string(std::max<size_t>(1, nodes.size()));
  env->Set("SLURM_JOB_NODELIST", nodelist);
  env->Set("SLURM_NODELIST", nodelist);
  env->Set("SLURM_JOB_NUM_NODES", nnodes);
  env->Set("SLURM_NNODES", nnodes);
  env->Set("SLURM_JOB_CPUS_PER_NODE", FormatRepeatedCounts(cpus));
  env->Set("SLURM_TASKS_PER_NODE", FormatRepeatedCounts(tasks));
  env->Set("SLURM_CPUS_ON_NODE", std::to_string(std::max(1, l.local().cpu_ids_size())));
  const JobSpec& spec = job.spec();
  if (spec.ntasks_set() || spec.ntasks_per_node() > 0) {
    int total = job.num_tasks();
    if (total <= 0) {
      total = 0;
      for (int t : tasks) total += t;
    }
    env->Set("SLURM_NTASKS", std::to_string(total));
    env->Set("SLURM_NPROCS", std::to_string(total));
  }
  if (spec.ntasks_per_node() > 0) {
    env->Set("SLURM_NTASKS_PER_NODE", std::to_string(spec.ntasks_per_node()));
  }
  if (spec.cpus_per_task() > 0)
    env->Set("SLURM_CPUS_PER_TASK", std::to_string(spec.cpus_per_task()));
  if (spec.cpus_per_gpu() > 0) env->Set("SLURM_CPUS_PER_GPU", std::to_string(spec.cpus_per_gpu()));
}

void SetGpuVars(const BatchLaunch& l, EnvList* env) {
  const JobSpec& spec = l.job().spec();
  if (spec.gpus_total() > 0) {
    std::string n = std::to_string(spec.gpus_total());
    env->Set("SLURM_GPUS", spec.gpu_type().empty() ? n : spec.gpu_type() + ":" + n);
  }
  if (spec.gpus_per_task() > 0)
    env->Set("SLURM_GPUS_PER_TASK", std::to_string(spec.gpus_per_task()));
  if (l.local().gpu_ids_size() == 0) return;
  std::string ids = JoinInts(l.local().gpu_ids());
  env->Set("SLURM_GPUS_ON_NODE", std::to_string(l.local().gpu_ids_size()));
  env->Set("SLURM_JOB_GPUS", ids);
  // ConstrainDevices: the job can open only its own GPUs, which CUDA numbers from 0.
  std::string visible =
      l.deny_devices().empty()
          ? ids
          : VisibleGpuIndices(ids, {l.local().gpu_ids().begin(), l.local().gpu_ids().end()});
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"}) {
    env->Set(name, visible);
  }
}

void SetMemoryVars(const BatchLaunch& l, EnvList* env) {
  const JobSpec& spec = l.job().spec();
  if (spec.mem_per_cpu_mb() > 0) {
    env->Set("SLURM_MEM_PER_CPU", std::to_string(spec.mem_per_cpu_mb()));
  } else if (spec.mem_per_node_mb() > 0) {
    env->Set("SLURM_MEM_PER_NODE", std::to_string(spec.mem_per_node_mb()));
  } else if (spec.mem_per_gpu_mb() > 0) {
    env->Set("SLURM_MEM_PER_GPU", std::to_string(spec.mem_per_gpu_mb()));
  } else if (l.def_mem_per_cpu_mb() > 0) {
    env->Set("SLURM_MEM_PER_CPU", std::to_string(l.def_mem_per_cpu_mb()));
  }
}

// Array tasks: SLURM_ARRAY_JOB_ID/TASK_ID/TASK_COUNT/TASK_MIN/TASK_MAX, and
// SLURM_ARRAY_TASK_STEP when the task ids are evenly spaced.
void SetArrayVars(const BatchLaunch& l, EnvList* env) {
  const JobInfo& job = l.job();
  if (job.array_job_id() == 0) return;
  env->Set("SLURM_ARRAY_JOB_ID", std::to_string(job.array_job_id()));
  env->Set("SLURM_ARRAY_TASK_ID", std::to_string(job.array_task_id()));
  env->Set("SLURM_ARRAY_TASK_COUNT", std::to_string(job.array_task_count()));
  env->Set("SLURM_ARRAY_TASK_MIN", std::to_string(job.array_task_min()));
  env->Set("SLURM_ARRAY_TASK_MAX", std::to_string(job.array_task_max()));
  if (job.array_task_step() > 0) {
    env->Set("SLURM_ARRAY_TASK_STEP", std::to_string(job.array_task_step()));
  }
}

void SetTaskAndSiteVars(const BatchLaunch& l, const BatchEnvContext& ctx, EnvList* env) {
  env->Set("SLURM_PROCID", "0");
  env->Set("SLURM_LOCALID", "0");
  env->Set("SLURM_NODEID", "0");
  env->Set("SLURM_GTIDS", "0");
  env->Set("SLURM_TASK_PID", std::to_string(ctx.task_pid));
  env->Set("SLURM_PRIO_PROCESS", "0");
  env->Set("SLURMD_NODENAME", ctx.node_name);
  env->Set("SLURM_TOPOLOGY_ADDR", ctx.node_name);
  env->Set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  env->Set("SLURM_NODE_ALIASES", "(null)");
  env->Set("SLURM_CLUSTER_NAME", l.cluster_name());
  if (!l.ctld_host().empty()) {
    env->Set("SLURM_WORKING_CLUSTER", l.cluster_name() + ":" + l.ctld_host() + ":" +
                                          std::to_string(l.ctld_port()) + ":9728:109");
  }
  if (!l.conf_path().empty()) {
    env->Set("SLURM_CONF", l.conf_path());
    env->Set("SLUICE_CONF", l.conf_path());
  }
  SetRelaySocketVar(l.relay_socket(), env);
  env->Set("ENVIRONMENT", "BATCH");
  env->Set("HOSTNAME", ctx.node_name);
  if (!ctx.work_dir.empty()) env->Set("PWD", ctx.work_dir);
  if (!env->Has("TMPDIR")) env->Set("TMPDIR", "/tmp");
}

// A heterogeneous job: SLURM_HET_SIZE and each component's allocation as
// SLURM_<VAR>_HET_GROUP_<k> (the unsuffixed variables are the first component's).
void SetHetVars(const BatchLaunch& l, EnvList* env) {
  if (l.het_components_size() < 2) return;
  env->Set("SLURM_HET_SIZE", std::to_string(l.het_components_size()));
  for (const JobInfo& c : l.het_components()) {
    const std::string k = "_HET_GROUP_" + std::to_string(c.het_job_offset());
    std::string nodelist;
    std::vector<int64_t> cpus, tasks;
    CountPerNode(SortedAlloc(c, &nodelist), &cpus, &tasks);
    env->Set("SLURM_JOB_ID" + k, std::to_string(c.job_id()));
    env->Set("SLURM_JOB_NODELIST" + k, nodelist);
    env->Set("SLURM_JOB_NUM_NODES" + k, std::to_string(c.alloc_size()));
    env->Set("SLURM_JOB_CPUS_PER_NODE" + k, FormatRepeatedCounts(cpus));
    env->Set("SLURM_TASKS_PER_NODE" + k, FormatRepeatedCounts(tasks));
    env->Set("SLURM_JOB_PARTITION" + k, c.spec().partition());
    env->Set("SLURM_JOB_ACCOUNT" + k, c.spec().account());
    if (c.spec().ntasks_set()) env->Set("SLURM_NTASKS" + k, std::to_string(c.num_tasks()));
    if (c.spec().cpus_per_task() > 0)
      env->Set("SLURM_CPUS_PER_TASK" + k, std::to_string(c.spec().cpus_per_task()));
  }
}

}  // namespace

void SetRelaySocketVar(const std::string& socket, EnvList* env) {
  if (!socket.empty() || env->Has(kRelaySocketVar)) env->Set(kRelaySocketVar, socket);
}

void SetJobIdentityVars(const JobInfo& job, int64_t job_id, EnvList* env) {
  const JobSpec& spec = job.spec();
  const std::string id = std::to_string(job_id);
  env->Set("SLURM_JOB_ID", id);
  env->Set("SLURM_JOBID", id);
  env->Set("SLURM_JOB_NAME", spec.name());
  env->Set("SLURM_JOB_PARTITION", spec.partition());
  if (!spec.account().empty()) env->Set("SLURM_JOB_ACCOUNT", spec.account());
  env->Set("SLURM_JOB_QOS", spec.qos().empty() ? "normal" : spec.qos());
  env->Set("SLURM_SUBMIT_DIR", spec.work_dir());
  env->Set("SLURM_SUBMIT_HOST", spec.submit_host());
  env->Set("SLURM_JOB_UID", std::to_string(job.uid()));
  env->Set("SLURM_JOB_GID", std::to_string(job.gid()));
  env->Set("SLURM_JOB_USER", job.user());
  if (job.restarts() > 0) env->Set("SLURM_RESTART_COUNT", std::to_string(job.restarts()));
  if (spec.overcommit()) env->Set("SLURM_OVERCOMMIT", "1");
  // sbatch --open-mode, for the job's srun steps (srun's SLURM_OPEN_MODE input variable).
  if (!spec.open_mode().empty())
    env->Set("SLURM_OPEN_MODE", spec.open_mode() == "append" ? "a" : "t");
}

std::vector<std::string> BuildBatchEnv(const BatchLaunch& launch, const BatchEnvContext& ctx) {
  EnvList env;
  for (const std::string& e : launch.env()) env.Add(e);
  SetJobIdentityVars(launch.job(), launch.job_id(), &env);
  SetArrayVars(launch, &env);
  SetNodeVars(launch, ctx, &env);
  SetGpuVars(launch, &env);
  SetMemoryVars(launch, &env);
  SetTaskAndSiteVars(launch, ctx, &env);
  SetHetVars(launch, &env);
  return env.Take();
}

}  // namespace sluice
