// Priority inputs and pending order of a scheduling pass: see pending_order.h.
#include "sched/pending_order.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace sluice::sched {

std::vector<Assoc> AssociationTree(std::vector<Assoc> declared, const std::vector<UsageKey>& seen,
                                   const UsageLedger& ledger) {
  std::set<UsageKey> have;
  for (const Assoc& a : declared) {
    if (!a.user.empty()) have.insert({a.account, a.user});
  }
  auto add_implicit = [&](const UsageKey& k) {
    if (k.second.empty() || !have.insert(k).second) return;
    declared.push_back({k.first, k.second, "", 1, 0});
  };
  for (const auto& [k, usage] : ledger.rows()) add_implicit(k);
  for (const UsageKey& k : seen) add_implicit(k);
  for (Assoc& a : declared) {
    if (!a.user.empty()) a.usage = ledger.Billing({a.account, a.user});
  }
  return declared;
}

std::map<int64_t, PriorityFactors> PrioritizePending(const PrioritySettings& settings,
                                                     const std::vector<Assoc>& tree,
                                                     const std::vector<PendingJob>& jobs,
                                                     int64_t now) {
  std::map<UsageKey, double> fairshare;
  auto rows = ComputeFairTree(tree);
  if (rows.ok()) {
    for (const ShareRow& r : *rows) {
      if (!r.user.empty()) fairshare[{r.account, r.user}] = r.fairshare;
    }
  }
  std::map<int64_t, PriorityFactors> out;
  for (const PendingJob& job : jobs) {
    if (job.held) continue;
    PriorityInput in;
    in.eligible_time = job.eligible_time;
    in.num_nodes = std::max(1, job.num_nodes);
    in.num_cpus = std::max<int64_t>(1, job.num_cpus);
    auto fs = fairshare.find(job.assoc);
    in.fairshare = fs == fairshare.end() ? 0.0 : fs->second;
    in.partition_job_factor = job.partition_job_factor;
    in.max_partition_job_factor = settings.max_partition_job_factor;
    in.qos_priority = job.qos_priority;
    in.max_qos_priority = settings.max_qos_priority;
    in.nice = job.nice;
    out[job.job_id] = ComputePriority(settings.weights, in, settings.totals, now);
  }
  return out;
}

std::vector<size_t> PendingOrder(const std::vector<JobRequest>& pending,
                                 const std::vector<int>& tiers) {
  std::vector<size_t> order(pending.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto tier = [&](size_t i) { return i < tiers.size() ? tiers[i] : 0; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tier(a) != tier(b)) return tier(a) > tier(b);
    const JobRequest& x = pending[a];
    const JobRequest& y = pending[b];
    if (x.priority != y.priority) return x.priority > y.priority;
    return x.job_id < y.job_id;
  });
  return order;
}

}  // namespace sluice::sched
