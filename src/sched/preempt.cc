// Preemption planning: see preempt.h.
#include "sched/preempt.h"

#include <algorithm>
#include <set>
#include <string>

#include "sched/placement.h"
#include "sched/scheduler.h"

namespace sluice::sched {
namespace {

void ReleaseShare(Node* node, const NodeShare& share, bool exclusive) {
  for (int id : share.cpu_ids) {
    if (id >= 0 && id < static_cast<int>(node->cpu_used.size())) node->cpu_used[id] = false;
  }
  node->mem_used_mb = std::max<int64_t>(0, node->mem_used_mb - share.mem_mb);
  for (Gpu& gpu : node->gpus) {
    if (std::count(share.gpu_ids.begin(), share.gpu_ids.end(), gpu.index)) gpu.used = false;
  }
  node->running_jobs = std::max(0, node->running_jobs - 1);
  if (exclusive) node->exclusive_held = false;
}

// Victims go in this order: lowest priority, youngest, highest id.
bool VictimFirst(const RunningJob* a, const RunningJob* b) {
  if (a->priority != b->priority) return a->priority < b->priority;
  if (a->start_time != b->start_time) return a->start_time > b->start_time;
  return a->job_id > b->job_id;
}

bool Fits(const ClusterSnapshot& snapshot, const JobRequest& job, std::vector<NodeShare>* alloc) {
  return PlaceJob(snapshot, job, alloc);
}

ClusterSnapshot Without(const ClusterSnapshot& base, const std::vector<const RunningJob*>& gone) {
  ClusterSnapshot s = base;
  for (const RunningJob* r : gone) ReleaseAllocation(&s, *r);
  return s;
}

// Drops victims that are not needed, most valuable first, until each one left is.
void Prune(const ClusterSnapshot& base, const JobRequest& job,
           std::vector<const RunningJob*>* victims) {
  std::vector<const RunningJob*> order = *victims;
  std::sort(order.begin(), order.end(), VictimFirst);
  std::reverse(order.begin(), order.end());
  std::vector<NodeShare> alloc;
  for (const RunningJob* v : order) {
    std::vector<const RunningJob*> rest;
    for (const RunningJob* r : *victims) {
      if (r != v) rest.push_back(r);
    }
    if (Fits(Without(base, rest), job, &alloc)) *victims = std::move(rest);
  }
}

// The victims needed to fit one node's share of `job` on node `index` (greedy in victim
// order, then pruned); false when the node cannot hold it even with all of them gone.
bool NodeVictims(const ClusterSnapshot& base, int index, const JobRequest& job,
                 const std::vector<const RunningJob*>& candidates,
                 std::vector<const RunningJob*>* out) {
  ClusterSnapshot one;
  one.nodes.push_back(base.nodes[index]);
  one.nodes[0].leaf_switch = -1;
  JobRequest single = job;
  single.num_nodes = 1;
  single.required_nodes.clear();
  std::vector<NodeShare> alloc;
  out->clear();
  if (Fits(one, single, &alloc)) return true;
  const std::string& name = one.nodes[0].name;
  ClusterSnapshot trial = one;
  for (const RunningJob* c : candidates) {
    bool here = std::any_of(c->alloc.begin(), c->alloc.end(),
                            [&](const NodeShare& s) { return s.node == name; });
    if (!here) continue;
    ReleaseAllocation(&trial, *c);
    out->push_back(c);
    if (Fits(trial, single, &alloc)) {
      Prune(one, single, out);
      return true;
    }
  }
  return false;
}

// Jobs with the same key are interchangeable for victim choice (shape, place, class).
std::string ChoiceKey(const JobRequest& j) {
  std::string key = std::to_string(j.num_nodes) + "/" + std::to_string(j.cpus_per_node) + "/" +
                    std::to_string(j.mem_per_node_mb) + "/" + std::to_string(j.gpus_per_node) +
                    "/" + j.gpu_type + "/" + (j.exclusive ? "x" : "") + "/" +
                    std::to_string(j.priority_tier) + "/" + j.qos + "/" + j.constraint + "|";
  for (const auto* list : {&j.allowed_nodes, &j.required_nodes, &j.excluded_nodes}) {
    for (const std::string& n : *list) key += n + ",";
    key += "|";
  }
  return key;
}

struct NodeCost {
  size_t count = 0;
  int64_t priority_sum = 0;
  int index = 0;
  std::vector<const RunningJob*> victims;
};

}  // namespace

void ReleaseAllocation(ClusterSnapshot* snapshot, const RunningJob& job) {
  for (const NodeShare& share : job.alloc) {
    for (Node& node : snapshot->nodes) {
      if (node.name == share.node) {
        ReleaseShare(&node, share, job.exclusive);
        break;
      }
    }
  }
}

bool MayPreempt(const PreemptSettings& settings, const JobRequest& preemptor,
                const RunningJob& victim, int64_t now) {
  if (victim.preempt_off || victim.being_preempted || victim.job_id == preemptor.job_id) {
    return false;
  }
  if (settings.exempt_s > 0 && now - victim.start_time < settings.exempt_s) return false;
  switch (settings.type) {
    case PreemptType::kPartitionPrio:
      return victim.priority_tier < preemptor.priority_tier;
    case PreemptType::kQos: {
      auto it = settings.rules.find(preemptor.qos);
      return it != settings.rules.end() && it->second.preempts.count(victim.qos) > 0;
    }
    default:
      return false;
  }
}

VictimChoice ChooseVictims(const ClusterSnapshot& snapshot, const JobRequest& job, int64_t now) {
  VictimChoice choice;
  ClusterSnapshot base = snapshot;
  base.running.clear();
  for (const RunningJob& r : snapshot.running) {
    if (r.being_preempted) ReleaseAllocation(&base, r);
  }
  if (Fits(base, job, &choice.alloc)) {
    choice.fits = true;  // the victims already chosen are enough: wait for them
    return choice;
  }
  std::vector<const RunningJob*> candidates;
  for (const RunningJob& r : snapshot.running) {
    if (MayPreempt(snapshot.preempt, job, r, now)) candidates.push_back(&r);
  }
  if (candidates.empty()) return choice;
  std::sort(candidates.begin(), candidates.end(), VictimFirst);
  if (!Fits(Without(base, candidates), job, &choice.alloc)) return choice;  // hopeless

  std::vector<const RunningJob*> victims;
  if (job.required_nodes.empty()) {  // fewest victims first: the cheapest nodes
    std::vector<NodeCost> costs;
    for (int i = 0; i < static_cast<int>(base.nodes.size()); ++i) {
      NodeCost c;
      c.index = i;
      if (!NodeVictims(base, i, job, candidates, &c.victims)) continue;
      c.count = c.victims.size();
      for (const RunningJob* v : c.victims) c.priority_sum += v->priority;
      costs.push_back(std::move(c));
    }
    std::sort(costs.begin(), costs.end(), [](const NodeCost& a, const NodeCost& b) {
      if (a.count != b.count) return a.count < b.count;
      if (a.priority_sum != b.priority_sum) return a.priority_sum < b.priority_sum;
      return a.index < b.index;
    });
    std::set<int64_t> seen;
    for (size_t k = 0; k < costs.size() && k < static_cast<size_t>(job.num_nodes); ++k) {
      for (const RunningJob* v : costs[k].victims) {
        if (seen.insert(v->job_id).second) victims.push_back(v);
      }
    }
    if (!Fits(Without(base, victims), job, &choice.alloc)) victims.clear();
  }
  if (victims.empty()) {  // greedy over the whole cluster in victim order
    for (const RunningJob* c : candidates) {
      victims.push_back(c);
      if (Fits(Without(base, victims), job, &choice.alloc)) break;
    }
  }
  Prune(base, job, &victims);
  choice.fits = Fits(Without(base, victims), job, &choice.alloc);
  if (!choice.fits) return choice;
  std::sort(victims.begin(), victims.end(), VictimFirst);
  for (const RunningJob* v : victims) choice.victims.push_back(v->job_id);
  return choice;
}

void PlanPreemptions(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                     int64_t now, Plan* plan) {
  if (snapshot.preempt.type == PreemptType::kNone) return;
  ClusterSnapshot work = snapshot;
  std::set<std::string> hopeless;  // stays so: the pass only takes resources away
  for (size_t i = 0; i < plan->decisions.size() && i < pending.size(); ++i) {
    const Decision& d = plan->decisions[i];
    const JobRequest& job = pending[i];
    if (d.outcome == Outcome::kStartNow) {
      ApplyAllocation(&work, d.alloc, job.exclusive);
      continue;
    }
    if (d.outcome != Outcome::kPending || job.het_job_id != 0 ||
        (d.reason != kReasonResources && d.reason != kReasonPriority)) {
      continue;
    }
    bool any = std::any_of(work.running.begin(), work.running.end(), [&](const RunningJob& r) {
      return r.being_preempted || MayPreempt(work.preempt, job, r, now);
    });
    if (!any) continue;
    std::string key = ChoiceKey(job);
    if (hopeless.count(key)) continue;
    VictimChoice choice = ChooseVictims(work, job, now);
    if (!choice.fits) {
      hopeless.insert(std::move(key));
      continue;
    }
    std::vector<NodeShare> free_now;
    if (choice.victims.empty() && PlaceJob(work, job, &free_now)) continue;  // not our matter
    plan->preemptions.push_back({job.job_id, choice.victims, choice.alloc});
    std::set<int64_t> victims(choice.victims.begin(), choice.victims.end());
    std::set<std::string> nodes;
    for (const NodeShare& share : choice.alloc) nodes.insert(share.node);
    std::vector<RunningJob> keep;
    for (RunningJob& r : work.running) {
      bool spoken_for = victims.count(r.job_id) > 0;
      if (r.being_preempted) {
        for (const NodeShare& share : r.alloc) spoken_for = spoken_for || nodes.count(share.node);
      }
      if (spoken_for) {
        ReleaseAllocation(&work, r);
      } else {
        keep.push_back(std::move(r));
      }
    }
    work.running = std::move(keep);
    ApplyAllocation(&work, choice.alloc, job.exclusive);
  }
}

ClusterSnapshot ClaimPreemptorPlaces(const ClusterSnapshot& snapshot,
                                     const std::vector<Preemption>& preemptions,
                                     const std::vector<JobRequest>& pending) {
  ClusterSnapshot out = snapshot;
  for (const Preemption& p : preemptions) {
    bool exclusive = false;
    for (const JobRequest& j : pending) {
      if (j.job_id == p.preemptor) exclusive = j.exclusive;
    }
    std::set<int64_t> victims(p.victims.begin(), p.victims.end());
    for (const NodeShare& share : p.alloc) {
      Node* node = nullptr;
      for (Node& n : out.nodes) {
        if (n.name == share.node) node = &n;
      }
      if (!node) continue;
      int64_t leaving_mem = 0;
      for (const RunningJob& r : snapshot.running) {
        if (!r.being_preempted && !victims.count(r.job_id)) continue;
        for (const NodeShare& s : r.alloc) {
          if (s.node == share.node) leaving_mem += s.mem_mb;
        }
      }
      if (static_cast<int>(node->cpu_used.size()) < node->cpus) node->cpu_used.resize(node->cpus);
      for (int id : share.cpu_ids) {
        if (id >= 0 && id < node->cpus) node->cpu_used[id] = true;
      }
      node->mem_used_mb = std::min(
          node->mem_mb, node->mem_used_mb + std::max<int64_t>(0, share.mem_mb - leaving_mem));
      for (Gpu& gpu : node->gpus) {
        if (std::count(share.gpu_ids.begin(), share.gpu_ids.end(), gpu.index)) gpu.used = true;
      }
      node->running_jobs += 1;
      if (exclusive) node->exclusive_held = true;
    }
  }
  return out;
}

std::vector<size_t> PreemptorsFirst(const std::vector<JobRequest>& pending,
                                    const std::set<int64_t>& preemptors) {
  std::vector<size_t> order(pending.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (preemptors.empty()) return order;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return preemptors.count(pending[i].job_id) > 0; });
  return order;
}

}  // namespace sluice::sched
