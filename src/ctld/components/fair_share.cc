#include "ctld/components/fair_share.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/tres_billing.h"
#include "ctld/components/validate.h"

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

sched::UsageKey FairShare::AssocOf(const JobInfo& job) const {
  const std::string& acct = job.spec().account();
  if (!acct.empty() && assocs_->Account(acct)) return {acct, job.user()};
  std::string def = assocs_->DefaultAccount(job.user());
  return {def.empty() ? std::string("root") : def, job.user()};
}

std::vector<sched::Assoc> FairShare::Associations(const JobTable& jobs) const {
  std::vector<sched::Assoc> declared;
  for (const auto& [name, a] : assocs_->accounts()) {
    if (name != "root") declared.push_back({name, "", a.parent(), a.shares(), 0});
  }
  for (const auto& [k, u] : assocs_->users()) {
    declared.push_back({u.account(), u.user(), "", u.shares(), 0});
  }
  std::vector<sched::UsageKey> seen;
  for (const auto& [id, job] : jobs.jobs()) {
    if (!IsTerminal(job.state())) seen.push_back(AssocOf(job));
  }
  return sched::AssociationTree(std::move(declared), seen, usage_);
}

std::vector<sched::UsageCharge> FairShare::Accrue(const JobTable& jobs, int64_t now) {
  auto weights = ParseTresBillingWeights(config_->priority.tres_billing_weights);
  if (!weights.ok()) weights = TresBillingWeights{};  // validated at config load
  std::vector<sched::UsageCharge> charges;
  for (int64_t id : jobs.NotPending()) {  // a pending job has not started: no charge
    const JobInfo& job = *jobs.Find(id);
    if (job.start_time() <= 0 || job.alloc_size() == 0) continue;
    const QosInfo* qos = assocs_->Qos(qos_of_(job));
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
  usage_.Accrue(now, config_->priority.decay_half_life_s, charges);
  return charges;
}

void FairShare::Prioritize(JobTable* jobs, int64_t now) {
  factors_.clear();
  if (!config_->priority.multifactor) return;
  sched::PrioritySettings settings;
  settings.weights = WeightsOf(config_->priority);
  settings.totals = TotalsOf(*config_);
  settings.max_partition_job_factor = MaxJobFactor(*config_);
  for (const auto& [name, q] : assocs_->qos()) {
    settings.max_qos_priority = std::max(settings.max_qos_priority, q.priority());
  }
  std::vector<sched::PendingJob> pending;
  for (const auto& [id, job] : jobs->jobs()) {
    if (job.state() != JOB_PENDING) continue;
    sched::PendingJob in;
    in.job_id = id;
    in.eligible_time = job.eligible_time() > 0 ? job.eligible_time() : job.submit_time();
    in.num_nodes = job.num_nodes();
    in.num_cpus = job.num_cpus();
    in.assoc = AssocOf(job);
    const PartitionConfig* part = LookupPartition(*config_, job.spec().partition());
    in.partition_job_factor = part ? part->priority_job_factor : 0;
    if (const QosInfo* q = assocs_->Qos(qos_of_(job))) in.qos_priority = q->priority();
    in.nice = job.spec().nice();
    in.held = job.priority() == 0;  // held stays 0
    pending.push_back(std::move(in));
  }
  factors_ = sched::PrioritizePending(settings, Associations(*jobs), pending, now);
  for (const auto& [id, f] : factors_) {
    jobs->Find(id)->set_priority(f.priority);
    if (auto* r = jobs->MutableRequest(id)) {
      r->priority = f.priority;
      r->priority_age = f.w_age;
    }
  }
}

GetPrioritiesReply FairShare::Priorities(const GetPrioritiesRequest& req,
                                         const JobTable& jobs) const {
  GetPrioritiesReply reply;
  const PriorityConfig& p = config_->priority;
  reply.set_multifactor(p.multifactor);
  reply.set_weight_age(p.weight_age);
  reply.set_weight_fairshare(p.weight_fairshare);
  reply.set_weight_job_size(p.weight_job_size);
  reply.set_weight_partition(p.weight_partition);
  reply.set_weight_qos(p.weight_qos);
  reply.set_weight_tres(p.weight_tres);
  std::set<int64_t> wanted(req.job_ids().begin(), req.job_ids().end());
  for (const auto& [id, job] : jobs.jobs()) {
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

Expected<GetSharesReply> FairShare::Shares(const JobTable& jobs) const {
  ASSIGN_OR_RETURN(auto rows, sched::ComputeFairTree(Associations(jobs)));
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
