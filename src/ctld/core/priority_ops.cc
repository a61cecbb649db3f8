// Priority and fair-share in the Controller: what each running job charges the usage
// ledger (sched/usage_ledger.h: TRES billing, decayed by PriorityDecayHalfLife, times the
// QOS UsageFactor; persisted by assoc_ops.cc), the association tree (the AssocDb's
// accounts and user associations plus an implicit association under "root", or under the
// requested account, for every user seen without one), multifactor priorities of pending
// jobs, the scheduler's pending order, and the sprio/sshare replies. The controller
// gathers the inputs from its tables and applies the results; the computation itself is
// sched/pending_order.h, which the simulator runs too.
#include <algorithm>
#include <cmath>

#include "common/tres_billing.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "sched/pending_order.h"

namespace sluice::ctld {
namespace {

TresAlloc AllocOf(const JobInfo& job) {
  TresAlloc a;
  a.nodes = job.alloc_size();
  for (const auto& n : job.alloc()) {
    a.cpus += n.cpu_ids_size();
    a.mem_mb += n.mem_mb();
    a.gpus += n.gpu_ids_size();
    if (!n.gpu_type().empty()) a.gpu_type = n.gpu_type();
  }
  return a;
}

sched::PriorityWeights WeightsOf(const PriorityConfig& p) {
  sched::PriorityWeights w;
  w.age = p.weight_age;
  w.fairshare = p.weight_fairshare;
  w.job_size = p.weight_job_size;
  w.partition = p.weight_partition;
  w.qos = p.weight_qos;
  w.max_age_s = p.max_age_s;
  w.favor_small = p.favor_small;
  return w;
}

sched::ClusterTotals TotalsOf(const Config& c) {
  sched::ClusterTotals t;
  for (const auto& n : c.nodes) {
    ++t.nodes;
    t.cpus += n.cpus;
  }
  return t;
}

int64_t MaxJobFactor(const Config& c) {
  int64_t m = 0;
  for (const auto& p : c.partitions) m = std::max<int64_t>(m, p.priority_job_factor);
  return m;
}

}  // namespace

Controller::AssocKey Controller::AssocOf(const JobInfo& job) const {
  const std::string& acct = job.spec().account();
  if (!acct.empty() && assoc_db_.Account(acct)) return {acct, job.user()};
  std::string def = assoc_db_.DefaultAccount(job.user());
  return {def.empty() ? std::string("root") : def, job.user()};
}

std::vector<sched::Assoc> Controller::Associations() const {
  std::vector<sched::Assoc> declared;
  for (const auto& [name, a] : assoc_db_.accounts()) {
    if (name != "root") declared.push_back({name, "", a.parent(), a.shares(), 0});
  }
  for (const auto& [k, u] : assoc_db_.users()) {
    declared.push_back({u.account(), u.user(), "", u.shares(), 0});
  }
  std::vector<AssocKey> seen;
  for (const auto& [id, job] : jobs_.jobs()) {
    if (!IsTerminal(job.state())) seen.push_back(AssocOf(job));
  }
  return sched::AssociationTree(std::move(declared), seen, usage_);
}

void Controller::AccrueUsage() {
  auto weights = ParseTresBillingWeights(config_.priority.tres_billing_weights);
  if (!weights.ok()) weights = TresBillingWeights{};  // validated at config load
  std::vector<sched::UsageCharge> charges;
  for (int64_t id : jobs_.NotPending()) {  // a pending job has not started: no charge
    const JobInfo& job = *jobs_.Find(id);
    if (job.start_time() <= 0 || job.alloc_size() == 0) continue;
    const QosInfo* qos = assoc_db_.Qos(JobQos(job));
    const TresAlloc alloc = AllocOf(job);
    sched::UsageCharge c;
    c.key = AssocOf(job);
    c.start = job.start_time();
    c.end = HoldsResources(job) ? 0 : job.end_time();
    c.billing_per_s = TresBilling(*weights, alloc);
    c.cpus = alloc.cpus;
    c.gpus = alloc.gpus;
    c.factor = qos ? qos->usage_factor() : 1.0;  // QOS UsageFactor
    charges.push_back(std::move(c));
  }
  usage_.Accrue(Now(), config_.priority.decay_half_life_s, charges);
  gpu_hours_.Charge(Now(), charges);
  SaveUsage(false);
}

void Controller::UpdatePriorities() {
  factors_.clear();
  if (!config_.priority.multifactor) return;
  sched::PrioritySettings settings;
  settings.weights = WeightsOf(config_.priority);
  settings.totals = TotalsOf(config_);
  settings.max_partition_job_factor = MaxJobFactor(config_);
  for (const auto& [name, q] : assoc_db_.qos()) {
    settings.max_qos_priority = std::max(settings.max_qos_priority, q.priority());
  }
  std::vector<sched::PendingJob> pending;
  for (const auto& [id, job] : jobs_.jobs()) {
    if (job.state() != JOB_PENDING) continue;
    sched::PendingJob in;
    in.job_id = id;
    in.eligible_time = job.eligible_time() > 0 ? job.eligible_time() : job.submit_time();
    in.num_nodes = job.num_nodes();
    in.num_cpus = job.num_cpus();
    in.assoc = AssocOf(job);
    const PartitionConfig* part = LookupPartition(config_, job.spec().partition());
    in.partition_job_factor = part ? part->priority_job_factor : 0;
    if (const QosInfo* q = assoc_db_.Qos(JobQos(job))) in.qos_priority = q->priority();
    in.nice = job.spec().nice();
    in.held = job.priority() == 0;  // held stays 0
    pending.push_back(std::move(in));
  }
  factors_ = sched::PrioritizePending(settings, Associations(), pending, Now());
  for (const auto& [id, f] : factors_) {
    JobInfo* job = jobs_.Find(id);
    job->set_priority(f.priority);  // advisory: recomputed every pass, not journaled
    if (auto* r = jobs_.MutableRequest(id)) r->priority = f.priority;
  }
}

void Controller::OrderPending(std::vector<sched::JobRequest>* pending) const {
  std::vector<int> tiers;
  tiers.reserve(pending->size());
  for (const auto& r : *pending) {
    const JobInfo* j = jobs_.Find(r.job_id);
    tiers.push_back(j ? PartitionPriorityTier(config_, j->spec().partition()) : 0);
  }
  std::vector<sched::JobRequest> out;
  out.reserve(pending->size());
  for (size_t i : sched::PendingOrder(*pending, tiers)) out.push_back(std::move((*pending)[i]));
  *pending = std::move(out);
}

double Controller::UsageOf(const std::string& account, const std::string& user) const {
  return usage_.Billing({account, user});
}

GetPrioritiesReply Controller::GetPriorities(const GetPrioritiesRequest& req) const {
  GetPrioritiesReply reply;
  const PriorityConfig& p = config_.priority;
  reply.set_multifactor(p.multifactor);
  reply.set_weight_age(p.weight_age);
  reply.set_weight_fairshare(p.weight_fairshare);
  reply.set_weight_job_size(p.weight_job_size);
  reply.set_weight_partition(p.weight_partition);
  reply.set_weight_qos(p.weight_qos);
  reply.set_weight_tres(p.weight_tres);
  std::set<int64_t> wanted(req.job_ids().begin(), req.job_ids().end());
  for (const auto& [id, job] : jobs_.jobs()) {
    if (job.state() != JOB_PENDING || (!wanted.empty() && wanted.count(id) == 0)) continue;
    JobPriority* out = reply.add_jobs();
    out->set_job_id(id);
    out->set_partition(job.spec().partition());
    out->set_user(job.user());
    out->set_uid(job.uid());
    out->set_account(AssocOf(job).first);
    out->set_priority(job.priority());
    out->set_nice(job.spec().nice());
    auto f = factors_.find(id);
    if (f == factors_.end()) continue;
    out->set_age(f->second.w_age);
    out->set_fairshare(f->second.w_fairshare);
    out->set_job_size(f->second.w_job_size);
    out->set_partition_prio(f->second.w_partition);
    out->set_qos(f->second.w_qos);
    out->set_age_factor(f->second.age);
    out->set_fairshare_factor(f->second.fairshare);
    out->set_job_size_factor(f->second.job_size);
    out->set_partition_factor(f->second.partition);
    out->set_qos_factor(f->second.qos);
  }
  return reply;
}

Expected<GetSharesReply> Controller::GetShares() const {
  ASSIGN_OR_RETURN(auto rows, sched::ComputeFairTree(Associations()));
  GetSharesReply reply;
  double total = rows.empty() ? 0 : rows[0].raw_usage;
  for (const auto& r : rows) {
    ShareInfo* s = reply.add_rows();
    s->set_account(r.account);
    s->set_user(r.user);
    s->set_depth(r.depth);
    s->set_raw_shares(r.raw_shares);
    s->set_norm_shares(r.norm_shares);
    s->set_raw_usage(r.raw_usage);
    s->set_norm_usage(total > 0 ? r.raw_usage / total : 0);
    s->set_effective_usage(r.effective_usage);
    s->set_level_fs(r.level_fs);
    s->set_fairshare(r.fairshare);
  }
  return reply;
}

}  // namespace sluice::ctld
