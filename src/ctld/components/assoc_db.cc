#include "ctld/components/assoc_db.h"

#include <fmt/format.h>

#include "common/text_util.h"

namespace sluice::ctld {

AdminLevel ParseAdminLevel(const std::string& s, bool* ok) {
  *ok = true;
  if (EqualsIgnoreCase(s, "none")) return AdminLevel::kNone;
  if (EqualsIgnoreCase(s, "operator")) return AdminLevel::kOperator;
  if (EqualsIgnoreCase(s, "administrator") || EqualsIgnoreCase(s, "admin"))
    return AdminLevel::kAdministrator;
  *ok = false;
  return AdminLevel::kNone;
}

const char* AdminLevelName(AdminLevel l) {
  switch (l) {
    case AdminLevel::kOperator:
      return "Operator";
    case AdminLevel::kAdministrator:
      return "Administrator";
    default:
      return "None";
  }
}

std::string AssocDb::UserRecordName(const std::string& user, const std::string& account) {
  return user + "\x1f" + account;
}

AssocDb::AssocDb() {
  AssocAccount root;
  root.set_name("root");
  root.set_description("default root account");
  root.set_organization("root");
  root.set_shares(1);
  accounts_["root"] = root;
  QosInfo normal;
  normal.set_name("normal");
  normal.set_description("Normal QOS default");
  normal.set_usage_factor(1.0);
  qos_["normal"] = normal;
}

void AssocDb::Seed(const Config& config) {
  if (!config.cluster_name.empty() && !clusters_.count(config.cluster_name))
    clusters_[config.cluster_name].set_name(config.cluster_name);
  for (const auto& a : config.accounts) {
    if (accounts_.count(a.name)) continue;
    AssocAccount acct;
    acct.set_name(a.name);
    acct.set_parent(a.parent);
    acct.set_description(a.name);
    acct.set_organization(a.name);
    acct.set_shares(a.shares);
    accounts_[a.name] = acct;
  }
  for (const auto& u : config.user_assocs) {
    if (users_.count({u.user, u.account})) continue;
    std::string def = DefaultAccount(u.user);
    AssocUser row;
    row.set_user(u.user);
    row.set_account(u.account);
    row.set_default_account(def.empty() ? u.account : def);
    row.set_shares(u.shares);
    row.set_admin_level(AdminLevelName(LevelOf(u.user)));
    users_[{u.user, u.account}] = row;
  }
  Reindex();
}

Status AssocDb::Load(const std::vector<storage::AssocRecord>& records) {
  for (const auto& r : records) {
    bool ok = true;
    if (r.kind == "cluster") {
      AssocCluster c;
      ok = c.ParseFromString(r.data);
      clusters_[c.name()] = c;
    } else if (r.kind == "account") {
      AssocAccount a;
      ok = a.ParseFromString(r.data);
      accounts_[a.name()] = a;
    } else if (r.kind == "user") {
      AssocUser u;
      ok = u.ParseFromString(r.data);
      users_[{u.user(), u.account()}] = u;
    } else if (r.kind == "qos") {
      QosInfo q;
      ok = q.ParseFromString(r.data);
      qos_[q.name()] = q;
    }
    if (!ok) return Internal(fmt::format("state store: {} record {} is corrupt", r.kind, r.name));
  }
  Reindex();
  return Status::Ok();
}

const AssocAccount* AssocDb::Account(const std::string& name) const {
  auto it = accounts_.find(name);
  return it == accounts_.end() ? nullptr : &it->second;
}

const AssocUser* AssocDb::User(const std::string& user, const std::string& account) const {
  auto it = users_.find({user, account});
  return it == users_.end() ? nullptr : &it->second;
}

bool AssocDb::HasUser(const std::string& user) const {
  auto it = users_.lower_bound({user, ""});
  return it != users_.end() && it->first.first == user;
}

std::string AssocDb::DefaultAccount(const std::string& user) const {
  auto it = users_.lower_bound({user, ""});
  if (it == users_.end() || it->first.first != user) return "";
  return it->second.default_account().empty() ? it->second.account() : it->second.default_account();
}

AdminLevel AssocDb::LevelOf(const std::string& user) const {
  auto it = levels_.find(user);
  return it == levels_.end() ? AdminLevel::kNone : it->second;
}

void AssocDb::Reindex() {
  levels_.clear();
  for (const auto& [k, u] : users_) {
    bool ok = false;
    AdminLevel l = ParseAdminLevel(u.admin_level(), &ok);
    if (ok && l != AdminLevel::kNone) levels_[k.first] = l;
  }
}

const QosInfo* AssocDb::Qos(const std::string& name) const {
  auto it = qos_.find(name);
  return it == qos_.end() ? nullptr : &it->second;
}

std::vector<std::string> AssocDb::Lineage(const std::string& account) const {
  std::vector<std::string> out;
  std::string cur = account;
  while (!cur.empty() && out.size() < 64) {
    const AssocAccount* a = Account(cur);
    if (!a) break;
    out.push_back(cur);
    cur = a->parent();
  }
  return out;
}

std::vector<std::string> AssocDb::AllowedQos(const std::string& user,
                                             const std::string& account) const {
  if (const AssocUser* u = User(user, account); u && u->qos_size() > 0)
    return {u->qos().begin(), u->qos().end()};
  for (const std::string& a : Lineage(account)) {
    const AssocAccount* acct = Account(a);
    if (acct->qos_size() > 0) return {acct->qos().begin(), acct->qos().end()};
  }
  return {"normal"};
}

std::string AssocDb::JobQos(const JobInfo& job) const {
  if (!job.spec().qos().empty()) return job.spec().qos();
  const std::string acct =
      job.spec().account().empty() ? DefaultAccount(job.user()) : job.spec().account();
  if (const AssocUser* u = User(job.user(), acct); u && !u->default_qos().empty())
    return u->default_qos();
  return "normal";
}

AssocLimits AssocDb::EffectiveLimits(const std::string& user, const std::string& account) const {
  AssocLimits out;
  std::vector<const AssocLimits*> chain;
  if (const AssocUser* u = User(user, account)) chain.push_back(&u->limits());
  for (const auto& a : Lineage(account)) chain.push_back(&Account(a)->limits());
  for (const AssocLimits* l : chain) {
    if (!out.has_max_jobs() && l->has_max_jobs()) out.set_max_jobs(l->max_jobs());
    if (!out.has_max_submit_jobs() && l->has_max_submit_jobs())
      out.set_max_submit_jobs(l->max_submit_jobs());
    if (!out.has_max_wall_min() && l->has_max_wall_min()) out.set_max_wall_min(l->max_wall_min());
    if (out.max_tres_per_job().empty()) out.set_max_tres_per_job(l->max_tres_per_job());
  }
  return out;
}

}  // namespace sluice::ctld
