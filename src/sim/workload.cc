// Trace -> cluster + requests: see workload.h.
#include "sim/workload.h"

#include <fmt/format.h>

#include <algorithm>

namespace sluice::sim {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

sched::Node MakeNode(int64_t index, int cpus, int gpus) {
  sched::Node node;
  node.name = fmt::format("sim{:05d}", index + 1);
  node.cpus = cpus;
  for (int i = 0; i < gpus; ++i) node.gpus.push_back(sched::Gpu{i, "", false, {}});
  return node;
}

Expected<sched::ClusterSnapshot> DeriveCluster(const Trace& trace, const WorkloadOptions& options) {
  sched::ClusterSnapshot cluster;
  int64_t nodes = options.nodes;
  if (trace.kind == TraceKind::kCpu) {
    if (options.cpus_per_node < 1) return InvalidArgument("--cpus-per-node must be >= 1");
    int64_t procs = trace.max_procs > 0 ? trace.max_procs : trace.max_nodes;
    if (procs <= 0) {
      for (const TraceJob& job : trace.jobs) procs = std::max<int64_t>(procs, job.procs);
    }
    if (nodes <= 0) nodes = CeilDiv(std::max<int64_t>(procs, 1), options.cpus_per_node);
    for (int64_t i = 0; i < nodes; ++i) {
      cluster.nodes.push_back(MakeNode(i, options.cpus_per_node, 0));
    }
    return cluster;
  }
  if (options.gpus_per_node < 1) return InvalidArgument("--gpus-per-node must be >= 1");
  if (nodes <= 0) {
    int64_t widest = 0;
    for (const TraceJob& job : trace.jobs) {
      widest = std::max<int64_t>(
          widest, job.nodes > 0 ? job.nodes : CeilDiv(job.gpus, options.gpus_per_node));
    }
    nodes =
        std::max({CeilDiv(PeakGpuDemand(trace.jobs), options.gpus_per_node), widest, int64_t{1}});
  }
  for (int64_t i = 0; i < nodes; ++i) {
    cluster.nodes.push_back(MakeNode(i, options.gpus_per_node, options.gpus_per_node));
  }
  return cluster;
}

// Largest CPU and GPU counts of one node.
void NodeShape(const sched::ClusterSnapshot& cluster, int* cpus, int* gpus) {
  *cpus = 1;
  *gpus = 0;
  for (const sched::Node& node : cluster.nodes) {
    *cpus = std::max(*cpus, node.cpus);
    *gpus = std::max(*gpus, static_cast<int>(node.gpus.size()));
  }
}

SimJob MakeJob(const TraceJob& trace_job, TraceKind kind, int node_cpus, int node_gpus,
               size_t index, size_t count) {
  SimJob job;
  job.id = trace_job.id;
  job.submit_s = trace_job.submit_s;
  job.run_s = trace_job.run_s;
  sched::JobRequest& request = job.request;
  request.job_id = static_cast<int64_t>(index) + 1;
  request.priority = static_cast<int64_t>(count - index);
  request.priority_age = request.priority;  // FCFS: the order of waiting
  request.submit_time = trace_job.submit_s;
  request.time_limit_s = trace_job.requested_s;
  if (!trace_job.user.empty()) job.traits.user = "u" + trace_job.user;
  job.app = trace_job.app;
  if (kind == TraceKind::kCpu) {
    const int64_t n = CeilDiv(trace_job.procs, node_cpus);
    request.num_nodes = static_cast<int>(n);
    request.cpus_per_node = static_cast<int>(CeilDiv(trace_job.procs, n));
  } else {
    const int64_t n =
        trace_job.nodes > 0 ? trace_job.nodes : CeilDiv(trace_job.gpus, std::max(node_gpus, 1));
    request.num_nodes = static_cast<int>(n);
    request.gpus_per_node = static_cast<int>(CeilDiv(trace_job.gpus, n));
    request.cpus_per_node = request.gpus_per_node;
  }
  request.tasks_per_node = 1;
  job.cpus = int64_t{request.num_nodes} * request.cpus_per_node;
  job.gpus = int64_t{request.num_nodes} * request.gpus_per_node;
  return job;
}

}  // namespace

int64_t PeakGpuDemand(const std::vector<TraceJob>& jobs) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, +-gpus); ends sort first
  events.reserve(jobs.size() * 2);
  for (const TraceJob& job : jobs) {
    events.emplace_back(job.submit_s, job.gpus);
    events.emplace_back(job.submit_s + job.run_s, -job.gpus);
  }
  std::sort(events.begin(), events.end());
  int64_t current = 0;
  int64_t peak = 0;
  for (const auto& event : events) {
    current += event.second;
    peak = std::max(peak, current);
  }
  return peak;
}

sched::ClusterSnapshot ClusterFromConfig(const Config& config) {
  sched::ClusterSnapshot cluster;
  for (const NodeConfig& node_config : config.nodes) {
    sched::Node node;
    node.name = node_config.name;
    node.cpus = node_config.cpus;
    node.mem_mb = node_config.real_memory_mb;
    for (const GpuDef& gpu : node_config.gpus)
      node.gpus.push_back({gpu.index, gpu.type, false, {}});
    node.features = node_config.features;
    cluster.nodes.push_back(std::move(node));
  }
  return cluster;
}

Expected<Workload> BuildWorkload(const Trace& trace, const WorkloadOptions& options) {
  Workload workload;
  workload.kind = trace.kind;
  if (options.config != nullptr) {
    workload.cluster = ClusterFromConfig(*options.config);
  } else {
    ASSIGN_OR_RETURN(workload.cluster, DeriveCluster(trace, options));
  }
  if (workload.cluster.nodes.empty()) return InvalidArgument("the cluster has no nodes");
  int node_cpus = 1, node_gpus = 0;
  NodeShape(workload.cluster, &node_cpus, &node_gpus);
  if (trace.kind == TraceKind::kGpu && node_gpus == 0) {
    return InvalidArgument("a GPU trace needs a cluster with GPUs; the cluster has none");
  }
  for (const sched::Node& node : workload.cluster.nodes) {
    workload.total_cpus += node.cpus;
    workload.total_gpus += static_cast<int64_t>(node.gpus.size());
  }
  workload.jobs.reserve(trace.jobs.size());
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    workload.jobs.push_back(
        MakeJob(trace.jobs[i], trace.kind, node_cpus, node_gpus, i, trace.jobs.size()));
  }
  return workload;
}

}  // namespace sluice::sim
