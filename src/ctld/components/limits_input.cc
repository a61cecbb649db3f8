// Scheduling-time association / QOS limits: see limits_input.h.
#include "ctld/components/limits_input.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "sched/assoc_limits.h"

namespace sluice::ctld {
namespace {

sched::TresLimit Tres(const std::string& s) {
  auto t = sched::ParseTresLimit(s);
  return t.ok() ? *t : sched::TresLimit{};
}

}  // namespace

void AddLimitsInput(const JobTable& jobs, const AssocDb& assocs, const FairShare& fair_share,
                    const std::vector<sched::JobRequest>& pending, int64_t now,
                    sched::ClusterSnapshot* snap) {
  sched::LimitsInput& in = snap->limits;
  sched::LimitScopeIndex scopes(&in);
  // Decayed usage minutes per account subtree (GrpTRESMins).
  std::map<std::string, std::pair<double, double>> subtree_min;
  for (const auto& [k, u] : fair_share.ledger().rows()) {
    for (const auto& a : assocs.Lineage(k.first)) {
      subtree_min[a].first += u.cpu_min;
      subtree_min[a].second += u.gpu_min;
    }
  }
  auto scopes_of = [&](const JobInfo& job) {
    std::vector<int> out;
    auto push = [&](int i) {
      if (i >= 0) out.push_back(i);
    };
    const sched::UsageKey key = fair_share.AssocOf(job);
    const std::string& account = key.first;
    const std::string& user = key.second;
    if (assocs.User(user, account)) {
      push(scopes.Get("u:" + user + "/" + account, [&] {
        AssocLimits eff = assocs.EffectiveLimits(user, account);
        const AssocLimits& own = assocs.User(user, account)->limits();
        sched::LimitScope s;
        s.label = "user " + user + " in account " + account;
        s.max_jobs = eff.has_max_jobs() ? eff.max_jobs() : -1;
        s.max_wall_s = eff.has_max_wall_min() ? eff.max_wall_min() * 60 : -1;
        s.max_tres_per_job = Tres(eff.max_tres_per_job());
        s.grp_jobs = own.has_grp_jobs() ? own.grp_jobs() : -1;
        s.grp_tres = Tres(own.grp_tres());
        s.grp_tres_mins = Tres(own.grp_tres_mins());
        if (const sched::AssocUsage* u = fair_share.ledger().Find({account, user})) {
          s.used_cpu_min = u->cpu_min;
          s.used_gpu_min = u->gpu_min;
        }
        return s;
      }));
    }
    for (const auto& a : assocs.Lineage(account)) {
      push(scopes.Get("a:" + a, [&] {
        const AssocLimits& l = assocs.Account(a)->limits();
        sched::LimitScope s;
        s.label = "account " + a;
        s.grp_jobs = l.has_grp_jobs() ? l.grp_jobs() : -1;
        s.grp_tres = Tres(l.grp_tres());
        s.grp_tres_mins = Tres(l.grp_tres_mins());
        std::tie(s.used_cpu_min, s.used_gpu_min) = subtree_min[a];
        return s;
      }));
    }
    const std::string qname = assocs.JobQos(job);
    const QosInfo* q = assocs.Qos(qname);
    if (!q) return out;
    push(scopes.Get("q:" + qname, [&] {
      const AssocLimits& l = q->limits();
      sched::LimitScope s;
      s.label = "QOS " + qname;
      s.qos = true;
      s.grp_jobs = l.has_grp_jobs() ? l.grp_jobs() : -1;
      s.grp_tres = Tres(l.grp_tres());
      s.max_wall_s = l.has_max_wall_min() ? l.max_wall_min() * 60 : -1;
      s.max_tres_per_job = Tres(l.max_tres_per_job());
      s.grp_tres_mins = Tres(l.grp_tres_mins());
      return s;
    }));
    push(scopes.Get("qu:" + qname + "/" + user, [&] {
      sched::LimitScope s;
      s.label = "user " + user + " in QOS " + qname;
      s.qos = true;
      s.max_jobs = q->limits().has_max_jobs() ? q->limits().max_jobs() : -1;
      s.max_tres_per_user = Tres(q->limits().max_tres_per_user());
      return s;
    }));
    return out;
  };
  for (const auto& r : pending) {
    if (const JobInfo* job = jobs.Find(r.job_id)) {
      auto s = scopes_of(*job);
      if (!s.empty()) in.job_scopes[r.job_id] = std::move(s);
    }
  }
  for (const auto& [id, job] : jobs.jobs()) {
    if (!HoldsResources(job)) continue;
    auto s = scopes_of(job);
    if (s.empty()) continue;
    in.job_scopes[id] = std::move(s);
    sched::LimitsInput::Running run;
    run.job_id = id;
    run.tres.node = job.alloc_size();
    for (const auto& a : job.alloc()) {
      run.tres.cpu += a.cpu_ids_size();
      run.tres.mem_mb += a.mem_mb();
      run.tres.gpu += a.gpu_ids_size();
    }
    if (job.time_limit_min() > 0)
      run.remaining_s = std::max<int64_t>(0, job.start_time() + job.time_limit_min() * 60 - now);
    in.running.push_back(run);
  }
}

}  // namespace sluice::ctld
