// Associations in the Controller: sacctmgr requests, AdminLevel privileges,
// AccountingStorageEnforce at submit, and the persistence of the association records
// and of the fair-share usage (StateStore assoc_records; kind "usage", name "state").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/text_util.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "sched/assoc_limits.h"

namespace sluice::ctld {
namespace {

constexpr char kMsgPolicy[] =
    "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
constexpr int64_t kUsageSaveEveryMs = 1000;

bool HasFlag(const QosInfo& q, const char* flag) {
  return std::any_of(q.flags().begin(), q.flags().end(),
                     [&](const std::string& f) { return EqualsIgnoreCase(f, flag); });
}

}  // namespace

Controller::EnforceFlags Controller::EnforceOf(const Config& c) {
  Controller::EnforceFlags f;
  for (const auto& [key, value] : c.raw) {
    if (!EqualsIgnoreCase(key, "AccountingStorageEnforce")) continue;
    for (auto part : Split(value, ',')) {
      std::string p = ToLower(Trim(part));
      if (p == "associations") f.associations = true;
      if (p == "limits") f.limits = f.associations = true;
      if (p == "qos") f.qos = f.associations = true;
      if (p == "safe") f.safe = f.limits = f.associations = true;
    }
  }
  return f;
}

Expected<SacctmgrReply> Controller::Sacctmgr(const Caller& caller, const SacctmgrRequest& req) {
  if (req.check_only()) {  // sacctmgr without -i: what would change, on a scratch copy
    AssocDb scratch = assoc_db_;
    AssocWrites would;
    ASSIGN_OR_RETURN(SacctmgrReply reply, scratch.Execute(req, access_.LevelOf(caller), &would));
    reply.set_changes(!would.puts.empty() || !would.erase.empty());
    return reply;
  }
  AssocDb before = assoc_db_;
  AssocWrites writes;
  ASSIGN_OR_RETURN(SacctmgrReply reply, assoc_db_.Execute(req, access_.LevelOf(caller), &writes));
  reply.set_changes(!writes.puts.empty() || !writes.erase.empty());
  if (store_) {
    Status st = store_->WriteAssocRecords(writes.puts, writes.erase);
    if (!st.ok()) {
      assoc_db_ = std::move(before);
      return st;
    }
  }
  if (!writes.puts.empty() || !writes.erase.empty()) {
    SyncQosPreemptRules();
    WantSchedule();
  }
  access_.HidePrivate(caller, req.entity(), &reply);
  return reply;
}

Status Controller::LoadAssociations() {
  enforce_ = EnforceOf(config_);
  if (!store_) return Status::Ok();
  ASSIGN_OR_RETURN(auto records, store_->LoadAssocRecords());
  RETURN_IF_ERROR(assoc_db_.Load(records));
  assoc_db_.Seed(config_);
  for (const auto& r : records) {
    if (r.kind != "usage") continue;
    AssocUsageState st;
    if (!st.ParseFromString(r.data)) return Internal("state store: usage record is corrupt");
    std::map<sched::UsageKey, sched::AssocUsage> rows;
    for (const auto& row : st.rows()) {
      rows[{row.account(), row.user()}] = {row.usage(), row.cpu_min(), row.gpu_min()};
    }
    fair_share_.ledger().Restore(st.time(), std::move(rows));
  }
  SyncQosPreemptRules();
  return Status::Ok();
}

void Controller::SaveUsage(bool force) {
  if (!store_) return;
  int64_t now_ms = clock_->NowMs();
  if (!force && usage_saved_ms_ >= 0 && now_ms - usage_saved_ms_ < kUsageSaveEveryMs) return;
  usage_saved_ms_ = now_ms;
  AssocUsageState st;
  st.set_time(fair_share_.ledger().time());
  for (const auto& [k, u] : fair_share_.ledger().rows()) {
    AssocUsageRow* row = st.add_rows();
    row->set_account(k.first);
    row->set_user(k.second);
    row->set_usage(u.billing);
    row->set_cpu_min(u.cpu_min);
    row->set_gpu_min(u.gpu_min);
  }
  storage::AssocRecord rec{"usage", "state", ""};
  st.SerializeToString(&rec.data);
  (void)store_->WriteAssocRecords({rec}, {});  // retried at the next save
}

void Controller::FillDefaultAccount(JobInfo* job) const {
  JobSpec* spec = job->mutable_spec();
  if (!spec->account().empty()) {  // account names are lower case, as sacctmgr stores them
    spec->set_account(ToLower(spec->account()));
    return;
  }
  std::string account = assoc_db_.DefaultAccount(job->user());
  if (account.empty() && !enforce_.associations) account = "root";
  spec->set_account(account);
}

Status Controller::CheckAssocSubmit(JobInfo* job, int64_t count) const {
  JobSpec* spec = job->mutable_spec();
  const std::string account = spec->account();
  if (!enforce_.associations) return Status::Ok();
  if (account.empty()) {
    return InvalidArgument(fmt::format("user {} has no association, so no default account\n{}",
                                       job->user(), kMsgInvalidAccount));
  }
  if (!assoc_db_.User(job->user(), account)) {
    return InvalidArgument(fmt::format(
        "invalid account or partition for user {}, account '{}', and partition '{}'\n{}",
        job->user(), account, spec->partition(), kMsgInvalidAccount));
  }
  const std::string qos_name = assoc_db_.JobQos(*job);
  const QosInfo* qos = assoc_db_.Qos(qos_name);
  if (enforce_.qos || !spec->qos().empty()) {
    auto allowed = assoc_db_.AllowedQos(job->user(), account);
    if (!qos || std::find(allowed.begin(), allowed.end(), qos_name) == allowed.end()) {
      return InvalidArgument(fmt::format(
          "invalid qos specified: {} (user {}, account {} may use {})\n{}", qos_name, job->user(),
          account, allowed.empty() ? "none" : fmt::format("{}", fmt::join(allowed, ",")),
          kMsgInvalidQos));
    }
  }
  if (!enforce_.limits) return Status::Ok();
  // No --time: the association's / QOS's MaxWall becomes the limit (as Slurm).
  AssocLimits eff = assoc_db_.EffectiveLimits(job->user(), account);
  if (spec->time_limit_min() == 0) {
    int64_t wall = eff.has_max_wall_min() ? eff.max_wall_min() : -1;
    if (qos && qos->limits().has_max_wall_min() &&
        (wall < 0 || qos->limits().max_wall_min() < wall))
      wall = qos->limits().max_wall_min();
    if (wall > 0 && (job->time_limit_min() <= 0 || job->time_limit_min() > wall))
      job->set_time_limit_min(wall);
  }
  // Submit limits: pending + running jobs of the user association, account subtrees
  // and the QOS.
  std::vector<std::string> lineage = assoc_db_.Lineage(account);
  std::vector<std::pair<int64_t, int64_t>> grp;  // (limit, count) per ancestor
  bool any = eff.has_max_submit_jobs() ||
             (qos && (qos->limits().has_max_submit_jobs() || qos->limits().has_grp_submit_jobs()));
  if (const AssocUser* u = assoc_db_.User(job->user(), account);
      u && u->limits().has_grp_submit_jobs())
    any = true;
  for (const auto& a : lineage) any = any || assoc_db_.Account(a)->limits().has_grp_submit_jobs();
  if (any) {
    int64_t mine = 0, qos_user = 0, qos_all = 0;
    std::map<std::string, int64_t> per_account;
    for (const auto& [id, j] : jobs_.jobs()) {
      if (IsTerminal(j.state())) continue;
      const std::string ja = fair_share_.AssocOf(j).first;
      if (j.user() == job->user() && ja == account) ++mine;
      for (const auto& a : assoc_db_.Lineage(ja)) ++per_account[a];
      if (assoc_db_.JobQos(j) == qos_name) {
        ++qos_all;
        if (j.user() == job->user()) ++qos_user;
      }
    }
    auto over = [&](bool has, int64_t limit, int64_t n) { return has && n + count > limit; };
    if (over(eff.has_max_submit_jobs(), eff.max_submit_jobs(), mine))
      return InvalidArgument(kMsgPolicy);
    const AssocUser* u = assoc_db_.User(job->user(), account);
    if (u && over(u->limits().has_grp_submit_jobs(), u->limits().grp_submit_jobs(), mine))
      return InvalidArgument(kMsgPolicy);
    for (const auto& a : lineage) {
      const AssocLimits& l = assoc_db_.Account(a)->limits();
      if (over(l.has_grp_submit_jobs(), l.grp_submit_jobs(), per_account[a]))
        return InvalidArgument(kMsgPolicy);
    }
    if (qos && over(qos->limits().has_max_submit_jobs(), qos->limits().max_submit_jobs(), qos_user))
      return InvalidArgument(kMsgPolicy);
    if (qos && over(qos->limits().has_grp_submit_jobs(), qos->limits().grp_submit_jobs(), qos_all))
      return InvalidArgument(kMsgPolicy);
  }
  // DenyOnLimit: per-job limits reject at submit instead of leaving the job pending.
  if (qos && HasFlag(*qos, "DenyOnLimit")) {
    const int64_t limit_min = job->time_limit_min();
    auto wall_over = [&](const AssocLimits& l) {
      return l.has_max_wall_min() && (limit_min <= 0 || limit_min > l.max_wall_min());
    };
    if (wall_over(eff) || wall_over(qos->limits())) return InvalidArgument(kMsgPolicy);
  }
  return Status::Ok();
}

}  // namespace sluice::ctld
