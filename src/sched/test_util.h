// Helpers for the scheduler tests: compact builders for nodes, snapshots and requests.
// Test-only; not part of the library's API.
#pragma once

#include <string>
#include <vector>

#include "sched/types.h"

namespace sluice::sched::testing {

// A node with `cpus` CPUs, `mem_mb` memory and `gpus` GPUs of `gpu_type` (indices 0..).
inline Node MakeNode(std::string name, int cpus, int64_t mem_mb, int gpus = 0,
                     std::string gpu_type = "a100", std::vector<std::string> features = {}) {
  Node node;
  node.name = std::move(name);
  node.cpus = cpus;
  node.mem_mb = mem_mb;
  for (int i = 0; i < gpus; ++i) node.gpus.push_back(Gpu{i, gpu_type, false, {}});
  node.features = std::move(features);
  return node;
}

// n nodes "node1".."nodeN", each 8 CPUs, 32000 MB, 4 a100 GPUs.
inline ClusterSnapshot MakeCluster(int n) {
  ClusterSnapshot snapshot;
  for (int i = 1; i <= n; ++i)
    snapshot.nodes.push_back(MakeNode("node" + std::to_string(i), 8, 32000, 4));
  return snapshot;
}

inline JobRequest MakeJob(int64_t id, int num_nodes = 1, int cpus = 1, int64_t mem_mb = 0,
                          int gpus = 0) {
  JobRequest job;
  job.job_id = id;
  job.num_nodes = num_nodes;
  job.cpus_per_node = cpus;
  job.mem_per_node_mb = mem_mb;
  job.gpus_per_node = gpus;
  return job;
}

inline JobRequest Timed(JobRequest job, int64_t limit) {
  job.time_limit_s = limit;
  return job;
}

// MakeCluster(2) with node1's 8 CPUs held by running job 1 until `busy_until`.
inline ClusterSnapshot BusyFirstNode(int64_t busy_until) {
  ClusterSnapshot s = MakeCluster(2);
  s.nodes[0].cpu_used.assign(8, true);
  s.nodes[0].running_jobs = 1;
  RunningJob r;
  r.job_id = 1;
  r.end_time = busy_until;
  r.alloc.push_back({"node1", {0, 1, 2, 3, 4, 5, 6, 7}, 0, {}, 1});
  s.running.push_back(r);
  return s;
}

inline std::vector<std::string> NodeNames(const std::vector<NodeShare>& alloc) {
  std::vector<std::string> names;
  for (const NodeShare& share : alloc) names.push_back(share.node);
  return names;
}

}  // namespace sluice::sched::testing
