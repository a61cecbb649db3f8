// Multifactor priority in the simulator: see priority_pass.h.
#include "sim/priority_pass.h"

#include <algorithm>

namespace sluice::sim {

sched::UsageKey AssocKeyOf(const SimJob& job) {
  return {job.traits.account.empty() ? std::string("root") : job.traits.account, job.traits.user};
}

PriorityPass::PriorityPass(const SimPriority& config, const sched::ClusterSnapshot& cluster,
                           int64_t epoch)
    : config_(config), epoch_(std::max<int64_t>(epoch, 1)) {
  settings_.weights = config.weights;
  settings_.max_partition_job_factor = config.max_partition_job_factor;
  settings_.max_qos_priority = config.max_qos_priority;
  for (const sched::Node& node : cluster.nodes) {
    ++settings_.totals.nodes;
    settings_.totals.cpus += node.cpus;
  }
}

void PriorityPass::Accrue(int64_t now, const std::vector<SimJob>& jobs,
                          const std::vector<Run>& ran) {
  std::vector<sched::UsageCharge> charges;
  charges.reserve(ran.size());
  for (const Run& r : ran) {
    const SimJob& job = jobs[r.index];
    sched::UsageCharge c;
    c.key = AssocKeyOf(job);
    c.start = epoch_ + r.start;
    c.end = r.end < 0 ? 0 : epoch_ + r.end;
    c.billing_per_s = static_cast<double>(job.cpus);
    c.cpus = job.cpus;
    c.gpus = job.gpus;
    charges.push_back(std::move(c));
  }
  ledger_.Accrue(epoch_ + now, config_.decay_half_life_s, charges);
}

void PriorityPass::Order(int64_t now, const std::vector<SimJob>& jobs,
                         const std::vector<size_t>& running, const std::vector<int64_t>& eligible_s,
                         std::vector<sched::JobRequest>* pending,
                         std::vector<size_t>* pending_index) const {
  std::vector<sched::PendingJob> inputs;
  std::vector<sched::UsageKey> seen;
  for (size_t index : running) seen.push_back(AssocKeyOf(jobs[index]));
  inputs.reserve(pending->size());
  for (size_t i = 0; i < pending->size(); ++i) {
    const sched::JobRequest& request = (*pending)[i];
    const SimJob& job = jobs[(*pending_index)[i]];
    sched::PendingJob in;
    in.job_id = request.job_id;
    in.eligible_time = epoch_ + eligible_s[(*pending_index)[i]];
    in.num_nodes = request.num_nodes;
    in.num_cpus = job.cpus;
    in.assoc = AssocKeyOf(job);
    in.partition_job_factor = job.traits.partition_job_factor;
    in.qos_priority = job.traits.qos_priority;
    in.nice = job.traits.nice;
    seen.push_back(in.assoc);
    inputs.push_back(std::move(in));
  }
  const auto factors = sched::PrioritizePending(
      settings_, sched::AssociationTree(config_.assocs, seen, ledger_), inputs, epoch_ + now);
  std::vector<int> tiers;
  tiers.reserve(pending->size());
  for (auto& request : *pending) {
    const sched::PriorityFactors& f = factors.at(request.job_id);
    request.priority = f.priority;
    request.priority_age = f.w_age;
    tiers.push_back(request.priority_tier);
  }
  std::vector<sched::JobRequest> ordered;
  std::vector<size_t> ordered_index;
  ordered.reserve(pending->size());
  ordered_index.reserve(pending->size());
  for (size_t i : sched::PendingOrder(*pending, tiers)) {
    ordered.push_back(std::move((*pending)[i]));
    ordered_index.push_back((*pending_index)[i]);
  }
  *pending = std::move(ordered);
  *pending_index = std::move(ordered_index);
}

}  // namespace sluice::sim
