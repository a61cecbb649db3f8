#include "ctld/launch_builder.h"

#include <fmt/format.h>

#include <cctype>

#include "common/hostlist.h"

namespace sluice::ctld {
namespace {

std::string Pad(const std::string& v, int width) {
  if (width <= 0 || static_cast<int>(v.size()) >= width) return v;
  return std::string(width - v.size(), '0') + v;
}

std::string PatternValue(char c, const JobInfo& job, const std::string& node) {
  switch (c) {
    case 'j': case 'J': case 'A': return std::to_string(job.job_id());
    case 'x': return job.spec().name();
    case 'u': return job.user();
    case 'N': return node;
    case 'n': case 't': return "0";
    case 's': return "batch";
    case 'a': return "4294967294";
    default: return std::string("%") + c;
  }
}

std::string JoinInts(const std::vector<int32_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

}  // namespace

std::string ExpandOutputPath(const std::string& pattern, const JobInfo& job,
                             const std::string& node, const std::string& work_dir) {
  const std::string& pat = pattern.empty() ? std::string("slurm-%j.out") : pattern;
  std::string out;
  for (size_t i = 0; i < pat.size(); ++i) {
    if (pat[i] != '%' || i + 1 >= pat.size()) {
      out += pat[i];
      continue;
    }
    if (pat[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pat.size() && std::isdigit(static_cast<unsigned char>(pat[j]))) {
      width = width * 10 + (pat[j++] - '0');
    }
    if (j >= pat.size()) {
      out += pat.substr(i);
      break;
    }
    out += Pad(PatternValue(pat[j], job, node), width);
    i = j;
  }
  if (!out.empty() && out[0] == '/') return out;
  std::string dir = work_dir.empty() ? "/" : work_dir;
  return dir.back() == '/' ? dir + out : dir + "/" + out;
}

std::string RepeatCompress(const std::vector<int>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (j - i > 1) out += fmt::format("(x{})", j - i);
    i = j;
  }
  return out;
}

std::vector<std::string> BuildJobEnv(const Config& config, const JobInfo& job, int node_index) {
  std::vector<std::string> env(job.spec().env().begin(), job.spec().env().end());
  std::vector<std::string> nodes;
  std::vector<int> cpus, tasks;
  for (const auto& a : job.alloc()) {
    nodes.push_back(a.node());
    cpus.push_back(a.cpu_ids_size());
    tasks.push_back(a.ntasks());
  }
  const NodeAlloc& local = job.alloc(node_index);
  std::string nodelist = CompressHostlistSorted(nodes);
  std::string gpus = JoinInts({local.gpu_ids().begin(), local.gpu_ids().end()});
  auto set = [&env](const std::string& k, const std::string& v) { env.push_back(k + "=" + v); };
  set("SLURM_JOB_ID", std::to_string(job.job_id()));
  set("SLURM_JOBID", std::to_string(job.job_id()));
  set("SLURM_JOB_NAME", job.spec().name());
  set("SLURM_JOB_NODELIST", nodelist);
  set("SLURM_NODELIST", nodelist);
  set("SLURM_JOB_NUM_NODES", std::to_string(job.alloc_size()));
  set("SLURM_NNODES", std::to_string(job.alloc_size()));
  set("SLURM_JOB_PARTITION", job.spec().partition());
  set("SLURM_CLUSTER_NAME", config.cluster_name);
  set("SLURM_JOB_UID", std::to_string(job.uid()));
  set("SLURM_JOB_GID", std::to_string(job.gid()));
  set("SLURM_JOB_USER", job.user());
  set("SLURM_JOB_ACCOUNT", job.spec().account().empty() ? job.user() : job.spec().account());
  set("SLURM_JOB_QOS", job.spec().qos().empty() ? "normal" : job.spec().qos());
  set("SLURM_JOB_CPUS_PER_NODE", RepeatCompress(cpus));
  set("SLURM_TASKS_PER_NODE", RepeatCompress(tasks));
  set("SLURM_SUBMIT_DIR", job.spec().work_dir());
  set("SLURM_SUBMIT_HOST", job.spec().submit_host());
  set("SLURM_CPUS_ON_NODE", std::to_string(local.cpu_ids_size()));
  set("SLURM_NODEID", std::to_string(node_index));
  set("SLURMD_NODENAME", local.node());
  set("SLURM_TOPOLOGY_ADDR", local.node());
  set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  set("SLURM_PRIO_PROCESS", "0");
  set("SLURM_RESTART_COUNT", std::to_string(job.restarts()));
  set("SLURM_CONF", config.path);
  if (job.spec().ntasks_set() || job.spec().ntasks_per_node() > 0) {
    set("SLURM_NTASKS", std::to_string(job.num_tasks()));
    set("SLURM_NPROCS", std::to_string(job.num_tasks()));
  }
  if (job.spec().ntasks_per_node() > 0) {
    set("SLURM_NTASKS_PER_NODE", std::to_string(job.spec().ntasks_per_node()));
  }
  if (job.spec().cpus_per_task() > 0) {
    set("SLURM_CPUS_PER_TASK", std::to_string(job.spec().cpus_per_task()));
  }
  if (job.spec().mem_per_cpu_mb() > 0) {
    set("SLURM_MEM_PER_CPU", std::to_string(job.spec().mem_per_cpu_mb()));
  } else if (job.spec().mem_per_node_mb() > 0) {
    set("SLURM_MEM_PER_NODE", std::to_string(job.spec().mem_per_node_mb()));
  }
  if (local.gpu_ids_size() > 0) {
    set("SLURM_GPUS_ON_NODE", std::to_string(local.gpu_ids_size()));
    set("SLURM_JOB_GPUS", gpus);
    set("CUDA_VISIBLE_DEVICES", gpus);
    set("GPU_DEVICE_ORDINAL", gpus);
  }
  return env;
}

LaunchJobRequest BuildLaunch(const Config& config, const JobInfo& job, int node_index) {
  LaunchJobRequest req;
  BatchLaunch* l = req.mutable_launch();
  l->set_job_id(job.job_id());
  *l->mutable_job() = job;
  *l->mutable_local() = job.alloc(node_index);
  for (auto& e : BuildJobEnv(config, job, node_index)) l->add_env(std::move(e));
  l->set_stdout_path(job.stdout_path());
  l->set_stderr_path(job.stderr_path());
  l->set_time_limit_s(job.time_limit_min() > 0 ? job.time_limit_min() * 60 : 0);
  l->set_kill_wait_s(config.kill_wait_s);
  l->set_append_output(job.restarts() > 0);
  return req;
}

}  // namespace sluice::ctld
