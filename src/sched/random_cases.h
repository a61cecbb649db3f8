// Random clusters and requests for the scheduler's property tests (fixed seeds). Snapshots
// are consistent: every used resource belongs to a listed running job, except an
// occasional unlisted CPU that never frees. Test-only.
#pragma once

#include <algorithm>
#include <random>
#include <string>

#include "sched/types.h"

namespace sluice::sched::testing {

class Rng {
 public:
  explicit Rng(uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return lo + static_cast<int>(rng_() % (hi - lo + 1)); }
  bool Chance(int percent) { return Int(0, 99) < percent; }

 private:
  std::mt19937 rng_;
};

// Up to `max_nodes` nodes with random GPUs (types a100/h100); running jobs end between
// now - 9 (overdue) and now + 50, or never.
inline ClusterSnapshot RandomSnapshot(Rng& rng, int max_nodes = 5, int64_t now = 10) {
  ClusterSnapshot s;
  const int nodes = rng.Int(1, max_nodes);
  for (int i = 0; i < nodes; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.cpus = rng.Int(1, 8);
    node.mem_mb = rng.Int(0, 4) * 1000;
    node.cpu_used.assign(node.cpus, false);
    const int gpus = rng.Int(0, 4);
    for (int g = 0; g < gpus; ++g)
      node.gpus.push_back(
          {gpus - g + rng.Int(0, 1) * 10, rng.Chance(50) ? "a100" : "h100", false, {}});
    node.available = rng.Chance(92);
    if (rng.Chance(10)) {  // usage no listed job accounts for: never released
      node.cpu_used[0] = true;
      node.running_jobs += 1;
    }
    s.nodes.push_back(node);
  }
  const int jobs = rng.Int(0, 8);
  for (int j = 0; j < jobs; ++j) {
    Node& node = s.nodes[rng.Int(0, nodes - 1)];
    if (node.exclusive_held) continue;
    RunningJob job;
    job.job_id = j + 1;
    job.end_time = rng.Chance(15) ? 0 : now + rng.Int(-9, 50);
    job.exclusive = node.running_jobs == 0 && rng.Chance(15);
    NodeShare share;
    share.node = node.name;
    for (int c = 0; c < node.cpus; ++c)
      if (!node.cpu_used[c] && (job.exclusive || rng.Chance(40))) share.cpu_ids.push_back(c);
    for (Gpu& g : node.gpus)
      if (!g.used && (job.exclusive || rng.Chance(40))) share.gpu_ids.push_back(g.index);
    share.mem_mb = job.exclusive ? node.mem_mb - node.mem_used_mb
                                 : rng.Int(0, static_cast<int>(node.mem_mb - node.mem_used_mb));
    for (int c : share.cpu_ids) node.cpu_used[c] = true;
    for (Gpu& g : node.gpus)
      if (std::count(share.gpu_ids.begin(), share.gpu_ids.end(), g.index)) g.used = true;
    node.mem_used_mb += share.mem_mb;
    node.running_jobs += 1;
    node.exclusive_held = job.exclusive;
    job.alloc.push_back(share);
    s.running.push_back(job);
  }
  return s;
}

inline JobRequest RandomJob(Rng& rng, const ClusterSnapshot& s) {
  JobRequest job;
  job.num_nodes = rng.Int(1, 3);
  job.cpus_per_node = rng.Int(1, 6);
  job.mem_per_node_mb = rng.Chance(50) ? 0 : rng.Int(1, 3) * 500;
  job.gpus_per_node = rng.Chance(40) ? 0 : rng.Int(1, 3);
  if (rng.Chance(30)) job.gpu_type = rng.Chance(50) ? "a100" : rng.Chance(80) ? "h100" : "v100";
  job.exclusive = rng.Chance(12);
  for (const Node& node : s.nodes) {
    if (rng.Chance(8)) job.excluded_nodes.push_back(node.name);
    if (rng.Chance(6)) job.required_nodes.push_back(node.name);
  }
  if (rng.Chance(15))
    for (const Node& node : s.nodes)
      if (rng.Chance(70)) job.allowed_nodes.push_back(node.name);
  return job;
}

}  // namespace sluice::sched::testing
