// Test doubles for the ctld unit tests: an agent link that records calls and a tiny
// first-fit scheduler.
#include "ctld/testing/test_fakes.h"

#include <fmt/format.h>
#include <algorithm>

namespace sluice::ctld::testing {

sched::Plan FirstFitScheduler::Schedule(const sched::ClusterSnapshot& snapshot,
                                        const std::vector<sched::JobRequest>& pending,
                                        int64_t now) {
  sched::ClusterSnapshot snap = snapshot;
  sched::Plan plan;
  for (const auto& job : pending) {
    sched::Decision d;
    d.job_id = job.job_id;
    for (auto& n : snap.nodes) {
      if (static_cast<int>(d.alloc.size()) == job.num_nodes) break;
      if (!n.available || n.exclusive_held) continue;
      const auto& allowed = job.allowed_nodes;
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), n.name) == allowed.end())
        continue;
      if (n.cpu_used.empty()) n.cpu_used.assign(n.cpus, false);
      sched::NodeShare share{n.name, {}, job.mem_per_node_mb, {}, job.tasks_per_node};
      for (int c = 0; c < n.cpus && static_cast<int>(share.cpu_ids.size()) < job.cpus_per_node;
           ++c) {
        if (!n.cpu_used[c]) share.cpu_ids.push_back(c);
      }
      for (auto& g : n.gpus) {
        if (static_cast<int>(share.gpu_ids.size()) < job.gpus_per_node && !g.used) {
          share.gpu_ids.push_back(g.index);
        }
      }
      if (static_cast<int>(share.cpu_ids.size()) < job.cpus_per_node ||
          static_cast<int>(share.gpu_ids.size()) < job.gpus_per_node) {
        continue;
      }
      for (int c : share.cpu_ids) n.cpu_used[c] = true;
      for (auto& g : n.gpus) {
        if (std::count(share.gpu_ids.begin(), share.gpu_ids.end(), g.index)) g.used = true;
      }
      d.alloc.push_back(share);
    }
    if (static_cast<int>(d.alloc.size()) == job.num_nodes) {
      d.outcome = sched::Outcome::kStartNow;
    } else {
      d.alloc.clear();
      d.reason = "Resources";
    }
    plan.decisions.push_back(d);
  }
  return plan;
}

sched::Decision FakeFeasible(const sched::ClusterSnapshot& snap, const sched::JobRequest& job) {
  FirstFitScheduler s;
  sched::Decision d = s.Schedule(snap, {job}, 0).decisions.at(0);
  if (d.outcome != sched::Outcome::kStartNow) {
    d.outcome = sched::Outcome::kNever;
    d.reason = "Requested node configuration is not available";
  }
  return d;
}

}  // namespace sluice::ctld::testing
