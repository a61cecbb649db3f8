#include "stepd/step_env.h"

#include <algorithm>
#include <cstdlib>

#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "common/text_util.h"
#include "stepd/batch_env.h"
#include "stepd/cpu_bind.h"
#include "stepd/env_list.h"

namespace sluice {
namespace {

template <typename Ints>
std::string Join(const Ints& v) {
  std::string out;
  for (int x : v) {
    if (!out.empty()) out += ",";
    out += std::to_string(x);
  }
  return out;
}

std::string SortedList(const JobInfo& job) {
  std::vector<std::string> names;
  for (const NodeAlloc& a : job.alloc()) names.push_back(a.node());
  return CompressHostlistSorted(names);
}

// CPUs per job node in hostlist order (SLURM_JOB_CPUS_PER_NODE).
std::vector<int64_t> JobCpus(const JobInfo& job) {
  std::vector<const NodeAlloc*> nodes;
  for (const NodeAlloc& a : job.alloc()) nodes.push_back(&a);
  auto order = ExpandHostlist(SortedList(job));
  if (order.ok()) {
    std::sort(nodes.begin(), nodes.end(), [&](const NodeAlloc* a, const NodeAlloc* b) {
      return std::find(order->begin(), order->end(), a->node()) <
             std::find(order->begin(), order->end(), b->node());
    });
  }
  std::vector<int64_t> out;
  for (const NodeAlloc* a : nodes) out.push_back(std::max(1, a->cpu_ids_size()));
  return out;
}

void SetJobVars(const StepLaunch& l, EnvList* env) {
  const JobInfo& job = l.job();
  SetJobIdentityVars(job, l.job_id(), env);
  std::string list = SortedList(job);
  env->Set("SLURM_JOB_NODELIST", list);
  env->Set("SLURM_JOB_NUM_NODES", std::to_string(job.alloc_size()));
  env->Set("SLURM_JOB_CPUS_PER_NODE", FormatRepeatedCounts(JobCpus(job)));
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
}

void SetStepVars(const StepLaunch& l, EnvList* env) {
  std::vector<std::string> nodes(l.step_nodes().begin(), l.step_nodes().end());
  std::string list = CompressHostlistSorted(nodes);
  std::vector<int64_t> tpn(l.tasks_per_node().begin(), l.tasks_per_node().end());
  std::string nnodes = std::to_string(nodes.size());
  std::string ntasks = std::to_string(l.ntasks());
  std::string step = std::to_string(l.step_id());
  env->Set("SLURM_STEP_ID", step);
  env->Set("SLURM_STEPID", step);
  env->Set("SLURM_NODELIST", list);
  env->Set("SLURM_STEP_NODELIST", list);
  env->Set("SLURM_NNODES", nnodes);
  env->Set("SLURM_STEP_NUM_NODES", nnodes);
  env->Set("SLURM_NTASKS", ntasks);
  env->Set("SLURM_NPROCS", ntasks);
  env->Set("SLURM_STEP_NUM_TASKS", ntasks);
  env->Set("SLURM_TASKS_PER_NODE", FormatRepeatedCounts(tpn));
  env->Set("SLURM_STEP_TASKS_PER_NODE", FormatRepeatedCounts(tpn));
  if (l.ntasks_per_node() > 0)
    env->Set("SLURM_NTASKS_PER_NODE", std::to_string(l.ntasks_per_node()));
  if (l.cpus_per_task() > 0) env->Set("SLURM_CPUS_PER_TASK", std::to_string(l.cpus_per_task()));
  // srun inside a batch allocation also reports these (reference sbatch_*.step.*.env).
  bool batch = !l.job().spec().interactive();
  if (!l.distribution().empty() || batch) {
    env->Set("SLURM_DISTRIBUTION", l.distribution().empty() ? "block" : l.distribution());
  }
  if (batch) env->Set("SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", env->Get("SLURM_JOB_CPUS_PER_NODE"));
  env->Set("SLURM_CPUS_ON_NODE", std::to_string(std::max(1, l.local().cpu_ids_size())));
}

void SetTaskVars(const StepLaunch& l, const StepTaskContext& ctx, EnvList* env) {
  int rank = ctx.local_id < l.task_ids_size() ? l.task_ids(ctx.local_id) : 0;
  std::string port = std::to_string(l.io_port());
  env->Set("SLURM_PROCID", std::to_string(rank));
  env->Set("SLURM_LOCALID", std::to_string(ctx.local_id));
  env->Set("SLURM_NODEID", std::to_string(l.node_index()));
  env->Set("SLURM_GTIDS", Join(l.task_ids()));
  env->Set("SLURM_TASK_PID", std::to_string(ctx.task_pid));
  env->Set("SLURM_PRIO_PROCESS", "0");
  env->Set("SLURMD_NODENAME", ctx.node_name);
  env->Set("SLURM_TOPOLOGY_ADDR", ctx.node_name);
  env->Set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  env->Set("SLURM_LAUNCH_NODE_IPADDR", l.launch_node_ipaddr());
  env->Set("SLURM_SRUN_COMM_HOST", l.launch_node_ipaddr());
  env->Set("SLURM_SRUN_COMM_PORT", port);
  env->Set("SLURM_STEP_LAUNCHER_PORT", port);
  env->SetDefault("SLURM_UMASK", "0022");
  env->Set("SRUN_DEBUG", "3");
  if (!ctx.work_dir.empty()) env->Set("PWD", ctx.work_dir);
}

void SetGpuVars(const StepLaunch& l, const StepTaskContext& ctx, EnvList* env) {
  if (l.local().gpu_ids_size() == 0 || StepGpus(l).empty()) return;
  std::string ids = TaskGpus(l, ctx.local_id);
  env->Set("SLURM_GPUS_ON_NODE", std::to_string(l.local().gpu_ids_size()));
  env->Set("SLURM_STEP_GPUS", ids);
  std::string visible = l.deny_devices().empty() ? ids : VisibleGpuIndices(ids, StepGpus(l));
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"}) {
    env->Set(name, visible);
  }
  if (l.gpus_per_task() > 0) {
    env->Set("SLURMD_TRES_BIND", "gpu:per_task:" + std::to_string(l.gpus_per_task()));
  }
}

void SetTorchVars(const StepLaunch& l, const StepTaskContext& ctx, EnvList* env) {
  if (!l.pytorch_env()) return;
  int rank = ctx.local_id < l.task_ids_size() ? l.task_ids(ctx.local_id) : 0;
  env->SetDefault("RANK", std::to_string(rank));
  env->SetDefault("WORLD_SIZE", std::to_string(l.ntasks()));
  env->SetDefault("LOCAL_RANK", std::to_string(ctx.local_id));
  env->SetDefault("LOCAL_WORLD_SIZE", std::to_string(l.task_ids_size()));
  env->SetDefault("GROUP_RANK", std::to_string(l.node_index()));
  if (!l.master_addr().empty()) env->SetDefault("MASTER_ADDR", l.master_addr());
  if (l.master_port() > 0) env->SetDefault("MASTER_PORT", std::to_string(l.master_port()));
}

}  // namespace

namespace {

// --gpu-bind=closest: the step's GPUs whose closest CPUs include one of the task's (its
// --cpu-bind CPUs, else its cpus-per-task slice of the step's); all of them when none is.
std::string ClosestGpus(const StepLaunch& l, int local_id, const std::vector<int>& ids) {
  CpuBindPlan plan = PlanCpuBind(l, local_id);
  std::vector<int> task_cpus = plan.bind ? plan.cpus : TaskCpuSlice(l, local_id);
  std::vector<int> mine;
  for (int g : ids) {
    if (g < 0 || g >= l.gpu_cpus_size()) continue;
    auto gpu_cpus = ExpandIdRanges(l.gpu_cpus(g));
    if (std::any_of(task_cpus.begin(), task_cpus.end(), [&](int c) {
          return std::find(gpu_cpus.begin(), gpu_cpus.end(), c) != gpu_cpus.end();
        })) {
      mine.push_back(g);
    }
  }
  return Join(mine.empty() ? ids : mine);
}

}  // namespace

std::string VisibleGpuIndices(const std::string& ids, std::vector<int> visible) {
  std::sort(visible.begin(), visible.end());
  std::vector<int> out;
  for (std::string_view id : Split(ids, ',')) {
    if (id.empty()) continue;
    auto it = std::find(visible.begin(), visible.end(), std::atoi(std::string(id).c_str()));
    if (it != visible.end()) out.push_back(static_cast<int>(it - visible.begin()));
  }
  return Join(out);
}

std::vector<int> StepGpus(const StepLaunch& l) {
  const auto& ids = l.step_resources() ? l.step_gpu_ids() : l.local().gpu_ids();
  return std::vector<int>(ids.begin(), ids.end());
}

std::string TaskGpus(const StepLaunch& l, int local_id) {
  std::vector<int> ids = StepGpus(l);
  if (ids.empty()) return "";
  // --gpu-bind: the last of none / closest / single:N / map_gpu:list wins.
  std::string bind;
  size_t start = 0;
  const std::string& spec = l.gpu_bind();
  while (start <= spec.size() && !spec.empty()) {
    size_t comma = spec.find(',', start);
    std::string part =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.rfind("map_gpu:", 0) == 0) {
      bind = spec.substr(start);  // the list runs to the end
      break;
    }
    if (part != "verbose") bind = part;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (bind == "none") return Join(ids);
  if (bind.rfind("single:", 0) == 0) {
    int per_gpu = std::max(1, std::atoi(bind.c_str() + 7));
    return std::to_string(ids[(local_id / per_gpu) % ids.size()]);
  }
  if (bind.rfind("map_gpu:", 0) == 0) {
    std::vector<int> map;
    std::string list = bind.substr(8);
    for (size_t p = 0; p <= list.size();) {
      size_t c = list.find(',', p);
      map.push_back(
          std::atoi(list.substr(p, c == std::string::npos ? std::string::npos : c - p).c_str()));
      if (c == std::string::npos) break;
      p = c + 1;
    }
    return std::to_string(map[local_id % map.size()]);
  }
  if (bind == "closest" && l.gpu_cpus_size() > 0) return ClosestGpus(l, local_id, ids);
  int per = l.gpus_per_task();
  if (per <= 0) return Join(ids);  // closest/default: no topology known, all the step's GPUs
  std::vector<int> mine;
  for (int k = local_id * per; k < (local_id + 1) * per && k < static_cast<int>(ids.size()); ++k) {
    mine.push_back(ids[k]);
  }
  return Join(mine);
}

std::vector<std::string> BuildStepTaskEnv(const StepLaunch& launch, const StepTaskContext& ctx) {
  EnvList env;
  for (const std::string& e : launch.env()) env.Add(e);
  SetTorchVars(launch, ctx, &env);  // before the overlay: only the user's own values win
  SetJobVars(launch, &env);
  SetStepVars(launch, &env);
  SetTaskVars(launch, ctx, &env);
  SetGpuVars(launch, ctx, &env);
  return env.Take();
}

}  // namespace sluice
