// AssocDb::Execute: sacctmgr add|modify|delete|show of cluster|account|user|qos.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/slurm_format.h"
#include "common/text_util.h"
#include "ctld/components/assoc_db.h"
#include "sched/assoc_limits.h"

namespace sluice::ctld {
namespace {

constexpr char kMsgNoPerm[] = "Your user doesn't have privilege to perform this action";

struct KV {
  std::string key;  // lower case
  char op = '=';    // '=', '+' (+=) or '-' (-=)
  std::string value;
};

Expected<KV> SplitKV(const std::string& w) {
  size_t eq = w.find('=');
  if (eq == std::string::npos || eq == 0)
    return InvalidArgument(fmt::format("Unknown option: {}", w));
  KV kv;
  kv.key = ToLower(w.substr(0, eq));
  kv.value = w.substr(eq + 1);
  if (kv.key.back() == '+' || kv.key.back() == '-') {
    kv.op = kv.key.back();
    kv.key.pop_back();
  }
  return kv;
}

std::vector<std::string> List(const std::string& v) {
  std::vector<std::string> out;
  for (auto p : Split(v, ',')) {
    std::string s(Trim(p));
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

bool IsKey(const std::string& k, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (k == n) return true;
  return false;
}

Status BadValue(const KV& kv) {
  return InvalidArgument(fmt::format("Bad value '{}' for {}", kv.value, kv.key));
}

// Sets an optional count: -1 clears.
Status SetCount(const KV& kv, void (AssocLimits::*set)(int64_t), void (AssocLimits::*clear)(),
                AssocLimits* l) {
  int64_t v = 0;
  if (kv.value == "-1") return ((l->*clear)(), Status::Ok());
  if (!ParseNonNegative(kv.value, &v)) return BadValue(kv);
  (l->*set)(v);
  return Status::Ok();
}

Status SetTres(const KV& kv, std::string* field) {
  auto base = sched::ParseTresLimit(*field);
  if (!base.ok()) base = sched::TresLimit{};
  auto merged = sched::MergeTresLimit(*base, kv.value);
  if (!merged.ok()) return InvalidArgument(merged.status().message());
  *field = sched::FormatTresLimit(*merged);
  return Status::Ok();
}

// Limit keys shared by accounts, users and QOS. Returns NotFound for other keys.
Status SetLimit(const KV& kv, AssocLimits* l) {
  const std::string& k = kv.key;
  if (IsKey(k, {"maxjobs", "maxjobsperuser", "maxjobspu"}))
    return SetCount(kv, &AssocLimits::set_max_jobs, &AssocLimits::clear_max_jobs, l);
  if (IsKey(k, {"maxsubmitjobs", "maxsubmit", "maxsubmitjobsperuser", "maxsubmitpu"}))
    return SetCount(kv, &AssocLimits::set_max_submit_jobs, &AssocLimits::clear_max_submit_jobs, l);
  if (IsKey(k, {"grpjobs"}))
    return SetCount(kv, &AssocLimits::set_grp_jobs, &AssocLimits::clear_grp_jobs, l);
  if (IsKey(k, {"grpsubmitjobs", "grpsubmit"}))
    return SetCount(kv, &AssocLimits::set_grp_submit_jobs, &AssocLimits::clear_grp_submit_jobs, l);
  if (IsKey(k, {"maxwall", "maxwalldurationperjob"})) {
    if (kv.value == "-1") return (l->clear_max_wall_min(), Status::Ok());
    auto m = ParseTimeLimitMinutes(kv.value);
    if (!m.ok() || *m < 0) return BadValue(kv);
    l->set_max_wall_min(*m);
    return Status::Ok();
  }
  if (k == "grptres") return SetTres(kv, l->mutable_grp_tres());
  if (IsKey(k, {"maxtres", "maxtresperjob"})) return SetTres(kv, l->mutable_max_tres_per_job());
  if (IsKey(k, {"maxtresperuser", "maxtrespu"})) return SetTres(kv, l->mutable_max_tres_per_user());
  if (k == "grptresmins") return SetTres(kv, l->mutable_grp_tres_mins());
  return NotFound(k);
}

Status SetShares(const KV& kv, int64_t* out) {
  if (!ParseNonNegative(kv.value, out)) return BadValue(kv);
  return Status::Ok();
}

// qos=a,b / qos+=a / qos-=a on an allowed-QOS list.
template <typename Msg>
Status SetQosList(const KV& kv, const AssocDb& db, Msg* m,
                  google::protobuf::RepeatedPtrField<std::string>* list) {
  std::vector<std::string> cur(list->begin(), list->end());
  for (const auto& q : List(kv.value)) {
    if (!db.Qos(q)) return NotFound(fmt::format("Unknown QOS name: {}", q));
  }
  auto names = List(kv.value);
  if (kv.op == '=') cur = names;
  for (const auto& n : names) {
    auto it = std::find(cur.begin(), cur.end(), n);
    if (kv.op == '+' && it == cur.end()) cur.push_back(n);
    if (kv.op == '-' && it != cur.end()) cur.erase(it);
  }
  list->Clear();
  for (auto& n : cur) *list->Add() = n;
  (void)m;
  return Status::Ok();
}

}  // namespace

class AssocEdit {
 public:
  AssocEdit(AssocDb* db, AdminLevel level, AssocWrites* out) : db_(*db), level_(level), out_(out) {}

  Expected<SacctmgrReply> Run(const SacctmgrRequest& req) {
    std::string verb = ToLower(req.verb());
    std::string entity = ToLower(req.entity());
    if (entity.size() > 1 && entity.back() == 's' && entity != "qos") entity.pop_back();
    const bool assoc = entity == "association";
    if (assoc) entity = "user";
    if (entity != "cluster" && entity != "account" && entity != "user" && entity != "qos")
      return InvalidArgument(fmt::format("Unknown entity '{}'", req.entity()));
    names_.assign(req.names().begin(), req.names().end());
    for (const auto& w : req.where()) {
      ASSIGN_OR_RETURN(KV kv, SplitKV(w));
      if (IsKey(kv.key, {"name", "names", "user", "users"}) && entity != "account") {
        for (auto& n : List(kv.value)) names_.push_back(n);
      } else if (IsKey(kv.key, {"name", "names", "account", "accounts"}) && entity == "account") {
        for (auto& n : List(kv.value)) names_.push_back(n);
      } else {
        where_.push_back(kv);
      }
    }
    for (const auto& w : req.set()) {
      ASSIGN_OR_RETURN(KV kv, SplitKV(w));
      set_.push_back(kv);
    }
    if (verb == "show" || verb == "list") return Show(entity, assoc);
    if (level_ == AdminLevel::kNone) return PermissionDenied(kMsgNoPerm);
    if (verb == "add" || verb == "create") {
      if (entity == "cluster") return AddCluster();
      if (entity == "account") return AddAccount();
      if (entity == "user") return AddUser();
      return AddQos();
    }
    if (verb == "modify" || verb == "update") {
      if (entity == "account") return ModifyAccounts();
      if (entity == "user") return ModifyUsers();
      if (entity == "qos") return ModifyQos();
      return InvalidArgument("Cluster modification is not supported");
    }
    if (verb == "delete" || verb == "remove") return Delete(entity);
    return InvalidArgument(fmt::format("Unknown verb '{}'", req.verb()));
  }

 private:
  // ---- persistence helpers ----
  void Put(const AssocAccount& a) {
    Record("account", a.name(), a);
    db_.accounts_[a.name()] = a;
  }
  void Put(const AssocUser& u) {
    Record("user", AssocDb::UserRecordName(u.user(), u.account()), u);
    db_.users_[{u.user(), u.account()}] = u;
  }
  void Put(const QosInfo& q) {
    Record("qos", q.name(), q);
    db_.qos_[q.name()] = q;
  }
  void Put(const AssocCluster& c) {
    Record("cluster", c.name(), c);
    db_.clusters_[c.name()] = c;
  }
  template <typename M>
  void Record(const char* kind, const std::string& name, const M& m) {
    storage::AssocRecord r{kind, name, ""};
    m.SerializeToString(&r.data);
    out_->puts.push_back(std::move(r));
  }
  void Erase(const char* kind, const std::string& name) { out_->erase.push_back({kind, name, ""}); }

  std::string Cluster() const {
    return db_.clusters_.empty() ? std::string("cluster") : db_.clusters_.begin()->first;
  }
  Status NeedNames() const {
    return names_.empty() ? InvalidArgument(" Need name(s) of what to act on") : Status::Ok();
  }

  // ---- add ----
  Expected<SacctmgrReply> AddCluster() {
    RETURN_IF_ERROR(NeedNames());
    std::vector<std::string> added;
    for (const auto& n : names_) {
      if (db_.clusters_.count(n)) continue;
      AssocCluster c;
      c.set_name(n);
      Put(c);
      added.push_back(n);
    }
    if (added.empty()) return Status(Code::kAlreadyExists, " Nothing new added.");
    Line(" Adding Cluster(s)");
    for (const auto& n : added) Line("  Name           = " + n);
    return reply_;
  }

  Status ApplyAccountKey(const KV& kv, AssocAccount* a) {
    if (kv.key == "parent") {
      if (!db_.Account(kv.value))
        return NotFound(fmt::format(" The parent account '{}' doesn't exist.", kv.value));
      a->set_parent(kv.value);
      return Status::Ok();
    }
    if (kv.key == "description") return (a->set_description(kv.value), Status::Ok());
    if (kv.key == "organization") return (a->set_organization(kv.value), Status::Ok());
    if (IsKey(kv.key, {"fairshare", "shares"})) {
      int64_t s = 0;
      RETURN_IF_ERROR(SetShares(kv, &s));
      a->set_shares(s);
      return Status::Ok();
    }
    if (kv.key == "qos") return SetQosList(kv, db_, a, a->mutable_qos());
    if (kv.key == "defaultqos") return (a->set_default_qos(kv.value), Status::Ok());
    if (IsKey(kv.key, {"cluster", "clusters"})) return Status::Ok();
    Status st = SetLimit(kv, a->mutable_limits());
    if (st.code() == Code::kNotFound)
      return InvalidArgument(fmt::format(" Unknown option: {}", kv.key));
    return st;
  }

  Expected<SacctmgrReply> AddAccount() {
    RETURN_IF_ERROR(NeedNames());
    std::vector<AssocAccount> added;
    for (const auto& n : names_) {
      if (db_.Account(n)) continue;
      AssocAccount a;
      a.set_name(ToLower(n));
      a.set_parent("root");
      a.set_shares(1);
      for (const auto& kv : set_) RETURN_IF_ERROR(ApplyAccountKey(kv, &a));
      if (a.description().empty()) a.set_description(a.name());
      if (a.organization().empty())
        a.set_organization(a.parent() == "root" ? a.name() : a.parent());
      added.push_back(a);
    }
    if (added.empty()) return Status(Code::kAlreadyExists, " Nothing new added.");
    for (const auto& a : added) Put(a);
    Line(" Adding Account(s)");
    for (const auto& a : added) Line("  " + a.name());
    Line(" Settings");
    Line("  Description     = " + added[0].description());
    Line("  Organization    = " + added[0].organization());
    Line(" Associations");
    for (const auto& a : added) Line(fmt::format("  A = {:<10} C = {:<10}", a.name(), Cluster()));
    Line(" Settings");
    Line("  Parent        = " + added[0].parent());
    return reply_;
  }

  Status ApplyUserKey(const KV& kv, AssocUser* u) {
    if (IsKey(kv.key, {"defaultaccount", "defaultaccounts"})) {
      u->set_default_account(kv.value);
      return Status::Ok();
    }
    if (kv.key == "adminlevel") {
      bool ok = false;
      AdminLevel l = ParseAdminLevel(kv.value, &ok);
      if (!ok) return InvalidArgument(fmt::format(" Unknown Admin Level: {}", kv.value));
      if (level_ != AdminLevel::kAdministrator) return PermissionDenied(kMsgNoPerm);
      u->set_admin_level(AdminLevelName(l));
      return Status::Ok();
    }
    if (IsKey(kv.key, {"fairshare", "shares"})) {
      int64_t s = 0;
      RETURN_IF_ERROR(SetShares(kv, &s));
      u->set_shares(s);
      return Status::Ok();
    }
    if (kv.key == "qos") return SetQosList(kv, db_, u, u->mutable_qos());
    if (kv.key == "defaultqos") return (u->set_default_qos(kv.value), Status::Ok());
    if (IsKey(kv.key, {"cluster", "clusters", "partition"})) return Status::Ok();
    Status st = SetLimit(kv, u->mutable_limits());
    if (st.code() == Code::kNotFound)
      return InvalidArgument(fmt::format(" Unknown option: {}", kv.key));
    return st;
  }

  Expected<SacctmgrReply> AddUser() {
    RETURN_IF_ERROR(NeedNames());
    std::vector<std::string> accounts;
    std::string def_acct;
    std::vector<KV> rest;
    for (const auto& kv : set_) {
      if (IsKey(kv.key, {"account", "accounts"}))
        accounts = List(kv.value);
      else if (IsKey(kv.key, {"defaultaccount", "defaultaccounts"}))
        def_acct = kv.value;
      else
        rest.push_back(kv);
    }
    if (accounts.empty() && !def_acct.empty()) accounts.push_back(def_acct);
    if (accounts.empty()) return InvalidArgument(" Need name of account to add user to.");
    if (!def_acct.empty() &&
        std::find(accounts.begin(), accounts.end(), def_acct) == accounts.end())
      accounts.insert(accounts.begin(), def_acct);
    for (const auto& a : accounts) {
      if (!db_.Account(a))
        return NotFound(fmt::format(
            " This account '{}' doesn't exist.\n        Contact your admin to add this account.",
            a));
    }
    std::vector<AssocUser> added;
    for (const auto& n : names_) {
      std::string existing_def = db_.DefaultAccount(n);
      AdminLevel lvl = db_.LevelOf(n);
      for (const auto& a : accounts) {
        if (db_.User(n, a)) continue;
        AssocUser u;
        u.set_user(n);
        u.set_account(a);
        u.set_shares(1);
        u.set_default_account(!existing_def.empty() ? existing_def
                                                    : (!def_acct.empty() ? def_acct : accounts[0]));
        u.set_admin_level(AdminLevelName(lvl));
        for (const auto& kv : rest) RETURN_IF_ERROR(ApplyUserKey(kv, &u));
        added.push_back(u);
      }
    }
    if (added.empty()) return Status(Code::kAlreadyExists, " Nothing new added.");
    for (const auto& u : added) {
      Put(u);
      SyncUserWide(u);
    }
    std::vector<std::string> users;
    for (const auto& u : added)
      if (std::find(users.begin(), users.end(), u.user()) == users.end()) users.push_back(u.user());
    Line(" Adding User(s)");
    for (const auto& n : users) Line("  " + n);
    Line(" Associations =");
    for (const auto& u : added)
      Line(fmt::format("  U = {:<9} A = {:<10} C = {:<10}", u.user(), u.account(), Cluster()));
    Line(" Non Default Settings");
    return reply_;
  }

  // Default account and admin level are per user: copy them to every row of the user.
  void SyncUserWide(const AssocUser& from) {
    for (auto& [k, u] : db_.users_) {
      if (k.first != from.user() || k.second == from.account()) continue;
      if (u.default_account() == from.default_account() && u.admin_level() == from.admin_level())
        continue;
      AssocUser copy = u;
      copy.set_default_account(from.default_account());
      copy.set_admin_level(from.admin_level());
      Put(copy);
    }
  }

  Status ApplyQosKey(const KV& kv, QosInfo* q) {
    const std::string& k = kv.key;
    if (k == "description") return (q->set_description(kv.value), Status::Ok());
    if (k == "priority") {
      int64_t p = 0;
      if (!ParseNonNegative(kv.value, &p)) return BadValue(kv);
      q->set_priority(p);
      return Status::Ok();
    }
    if (k == "usagefactor") {
      char* end = nullptr;
      double f = std::strtod(kv.value.c_str(), &end);
      if (kv.value.empty() || *end != '\0' || !(f >= 0) || !std::isfinite(f)) return BadValue(kv);
      q->set_usage_factor(f);
      return Status::Ok();
    }
    if (k == "preempt") {
      std::vector<std::string> cur(q->preempt().begin(), q->preempt().end());
      auto names = List(kv.value);
      for (const auto& n : names)
        if (!db_.Qos(n) && n != q->name()) return NotFound(fmt::format("Unknown QOS name: {}", n));
      if (kv.op == '=') cur = names;
      for (const auto& n : names) {
        auto it = std::find(cur.begin(), cur.end(), n);
        if (kv.op == '+' && it == cur.end()) cur.push_back(n);
        if (kv.op == '-' && it != cur.end()) cur.erase(it);
      }
      q->clear_preempt();
      for (auto& n : cur) q->add_preempt(n);
      return Status::Ok();
    }
    if (k == "preemptmode") {
      std::string m = ToLower(kv.value);
      if (m == "cluster")
        q->set_preempt_mode(QOS_PREEMPT_CLUSTER);
      else if (m == "off")
        q->set_preempt_mode(QOS_PREEMPT_OFF);
      else if (m == "cancel")
        q->set_preempt_mode(QOS_PREEMPT_CANCEL);
      else if (m == "requeue")
        q->set_preempt_mode(QOS_PREEMPT_REQUEUE);
      else if (m == "suspend" || m == "gang") {
        return InvalidArgument(fmt::format(" PreemptMode={} is not supported", kv.value));
      } else
        return InvalidArgument(fmt::format(" Unknown preempt mode: {}", kv.value));
      return Status::Ok();
    }
    if (k == "gracetime") {
      auto m = ParseTimeLimitMinutes(kv.value);
      if (IsAllDigits(kv.value)) {  // Slurm: GraceTime is in seconds
        int64_t s = 0;
        ParseNonNegative(kv.value, &s);
        q->set_grace_time_s(s);
        return Status::Ok();
      }
      if (!m.ok() || *m < 0) return BadValue(kv);
      q->set_grace_time_s(*m * 60);
      return Status::Ok();
    }
    if (k == "flags") {
      q->clear_flags();
      for (const auto& f : List(kv.value)) q->add_flags(f);
      return Status::Ok();
    }
    Status st = SetLimit(kv, q->mutable_limits());
    if (st.code() == Code::kNotFound)
      return InvalidArgument(fmt::format(" Unknown option: {}", kv.key));
    return st;
  }

  Expected<SacctmgrReply> AddQos() {
    RETURN_IF_ERROR(NeedNames());
    std::vector<QosInfo> added;
    for (const auto& n : names_) {
      if (db_.Qos(n)) continue;
      QosInfo q;
      q.set_name(ToLower(n));
      q.set_usage_factor(1.0);
      for (const auto& kv : set_) RETURN_IF_ERROR(ApplyQosKey(kv, &q));
      if (q.description().empty()) q.set_description(q.name());
      added.push_back(q);
    }
    if (added.empty()) return Status(Code::kAlreadyExists, " Nothing new added.");
    for (const auto& q : added) Put(q);
    Line(" Adding QOS(s)");
    for (const auto& q : added) Line("  " + q.name());
    Line(" Settings");
    Line("  Description    = " + added[0].description());
    return reply_;
  }

  // ---- modify ----
  bool Named(const std::string& n) const {
    return names_.empty() || std::find(names_.begin(), names_.end(), n) != names_.end();
  }
  std::vector<std::string> WhereList(std::initializer_list<const char*> keys) const {
    std::vector<std::string> out;
    for (const auto& kv : where_)
      if (IsKey(kv.key, keys))
        for (auto& v : List(kv.value)) out.push_back(v);
    return out;
  }
  static bool In(const std::vector<std::string>& l, const std::string& v) {
    return l.empty() || std::find(l.begin(), l.end(), v) != l.end();
  }
  Status CheckWhereKeys(std::initializer_list<const char*> allowed) const {
    for (const auto& kv : where_)
      if (!IsKey(kv.key, allowed))
        return InvalidArgument(fmt::format(" Unknown condition: {}", kv.key));
    return Status::Ok();
  }

  Expected<SacctmgrReply> ModifyAccounts() {
    RETURN_IF_ERROR(
        CheckWhereKeys({"parent", "cluster", "clusters", "description", "organization"}));
    if (set_.empty()) return InvalidArgument(" Nothing to set");
    auto parents = WhereList({"parent"});
    std::vector<AssocAccount> changed;
    for (const auto& [name, a] : db_.accounts_) {
      if (!Named(name) || !In(parents, a.parent())) continue;
      if (names_.empty() && where_.empty()) continue;  // never everything implicitly
      AssocAccount copy = a;
      for (const auto& kv : set_) RETURN_IF_ERROR(ApplyAccountKey(kv, &copy));
      if (name == "root") copy.set_parent("");
      for (auto l = db_.Lineage(copy.parent()); const auto& p : l)
        if (p == name) return InvalidArgument(" Can't move an account under its own subtree");
      changed.push_back(copy);
    }
    if (changed.empty()) return NotFound(" Nothing modified");
    for (const auto& a : changed) Put(a);
    Line(" Modified account associations...");
    for (const auto& a : changed) Line(fmt::format("  C = {:<10} A = {:<10}", Cluster(), a.name()));
    return reply_;
  }

  Expected<SacctmgrReply> ModifyUsers() {
    RETURN_IF_ERROR(CheckWhereKeys({"account", "accounts", "cluster", "clusters", "partition"}));
    if (set_.empty()) return InvalidArgument(" Nothing to set");
    if (names_.empty()) return InvalidArgument(" Need name(s) of what to act on");
    auto accounts = WhereList({"account", "accounts"});
    std::vector<AssocUser> changed;
    for (const auto& [k, u] : db_.users_) {
      if (!Named(k.first) || !In(accounts, k.second)) continue;
      AssocUser copy = u;
      for (const auto& kv : set_) RETURN_IF_ERROR(ApplyUserKey(kv, &copy));
      if (!db_.User(copy.user(), copy.default_account()))
        return NotFound(fmt::format(" User {} has no association with account {}", copy.user(),
                                    copy.default_account()));
      changed.push_back(copy);
    }
    if (changed.empty()) return NotFound(" Nothing modified");
    for (const auto& u : changed) {
      Put(u);
      SyncUserWide(u);
    }
    Line(" Modified user associations...");
    for (const auto& u : changed)
      Line(fmt::format("  C = {:<10} A = {:<10} U = {:<9}", Cluster(), u.account(), u.user()));
    return reply_;
  }

  Expected<SacctmgrReply> ModifyQos() {
    RETURN_IF_ERROR(CheckWhereKeys({}));
    if (set_.empty()) return InvalidArgument(" Nothing to set");
    if (names_.empty()) return InvalidArgument(" Need name(s) of what to act on");
    std::vector<QosInfo> changed;
    for (const auto& [name, q] : db_.qos_) {
      if (!Named(name)) continue;
      QosInfo copy = q;
      for (const auto& kv : set_) RETURN_IF_ERROR(ApplyQosKey(kv, &copy));
      changed.push_back(copy);
    }
    if (changed.empty()) return NotFound(" Nothing modified");
    for (const auto& q : changed) Put(q);
    Line(" Modified qos...");
    for (const auto& q : changed) Line("  " + q.name());
    return reply_;
  }

  // ---- delete ----
  Expected<SacctmgrReply> Delete(const std::string& entity) {
    if (names_.empty()) return InvalidArgument(" Need name(s) of what to act on");
    std::vector<std::string> gone;
    if (entity == "cluster") {
      for (const auto& n : names_)
        if (db_.clusters_.erase(n)) (Erase("cluster", n), gone.push_back(n));
      if (gone.empty()) return NotFound(" Nothing deleted");
      Line(" Deleting clusters...");
    } else if (entity == "qos") {
      for (const auto& n : names_) {
        if (n == "normal") return InvalidArgument(" The QOS 'normal' can't be removed");
        if (db_.qos_.erase(n)) (Erase("qos", n), gone.push_back(n));
      }
      if (gone.empty()) return NotFound(" Nothing deleted");
      Line(" Deleting QOS(s)...");
    } else if (entity == "account") {
      return DeleteAccounts();
    } else {
      return DeleteUsers();
    }
    for (const auto& n : gone) Line("  " + n);
    return reply_;
  }

  Expected<SacctmgrReply> DeleteAccounts() {
    std::vector<std::string> gone;
    for (const auto& n : names_) {
      if (n == "root") return InvalidArgument(" The root account can't be removed");
      if (!db_.Account(n)) continue;
      for (const auto& [name, a] : db_.accounts_)
        if (a.parent() == n)
          return InvalidArgument(
              fmt::format(" Account '{}' has sub-accounts; remove them first", n));
      gone.push_back(n);
    }
    if (gone.empty()) return NotFound(" Nothing deleted");
    Line(" Deleting account(s)...");
    for (const auto& n : gone) {
      db_.accounts_.erase(n);
      Erase("account", n);
      Line("  " + n);
      std::vector<AssocDb::UserKey> users;
      for (const auto& [k, u] : db_.users_)
        if (k.second == n) users.push_back(k);
      for (const auto& k : users) RemoveUserRow(k);
    }
    return reply_;
  }

  Expected<SacctmgrReply> DeleteUsers() {
    RETURN_IF_ERROR(CheckWhereKeys({"account", "accounts", "cluster", "clusters", "partition"}));
    auto accounts = WhereList({"account", "accounts"});
    std::vector<AssocDb::UserKey> keys;
    for (const auto& [k, u] : db_.users_)
      if (Named(k.first) && In(accounts, k.second)) keys.push_back(k);
    if (keys.empty()) return NotFound(" Nothing deleted");
    Line(" Deleting user associations...");
    for (const auto& k : keys) {
      Line(fmt::format("  C = {:<10} A = {:<10} U = {:<9}", Cluster(), k.second, k.first));
      RemoveUserRow(k);
    }
    return reply_;
  }

  // Removes one row; the user's other rows get a valid default account.
  void RemoveUserRow(const AssocDb::UserKey& k) {
    db_.users_.erase(k);
    Erase("user", AssocDb::UserRecordName(k.first, k.second));
    auto it = db_.users_.lower_bound({k.first, ""});
    if (it == db_.users_.end() || it->first.first != k.first) return;
    if (db_.User(k.first, it->second.default_account())) return;
    AssocUser first = it->second;
    first.set_default_account(first.account());
    Put(first);
    SyncUserWide(first);
  }

  // ---- show ----
  Expected<SacctmgrReply> Show(const std::string& entity, bool assoc) {
    if (assoc) {  // every account and user association
      for (const auto& [n, c] : db_.clusters_) *reply_.add_clusters() = c;
      auto accounts = WhereList({"account", "accounts"});
      for (const auto& [n, a] : db_.accounts_)
        if (In(accounts, n)) *reply_.add_accounts() = a;
      for (const auto& [k, u] : db_.users_)
        if (Named(k.first) && In(accounts, k.second)) *reply_.add_users() = u;
      return reply_;
    }
    auto accounts = WhereList({"account", "accounts"});
    auto parents = WhereList({"parent"});
    if (entity == "cluster") {
      for (const auto& [n, c] : db_.clusters_)
        if (Named(n)) *reply_.add_clusters() = c;
      return reply_;
    }
    for (const auto& [n, c] : db_.clusters_) *reply_.add_clusters() = c;  // for the Cluster column
    if (entity == "account") {
      for (const auto& [n, a] : db_.accounts_)
        if (Named(n) && In(parents, a.parent())) *reply_.add_accounts() = a;
      for (const auto& [k, u] : db_.users_)
        if (Named(k.second)) *reply_.add_users() = u;
    } else if (entity == "user") {
      for (const auto& [k, u] : db_.users_)
        if (Named(k.first) && In(accounts, k.second)) *reply_.add_users() = u;
    } else {
      for (const auto& [n, q] : db_.qos_)
        if (Named(n)) *reply_.add_qos() = q;
    }
    return reply_;
  }

  void Line(const std::string& s) { reply_.add_lines(s); }

  AssocDb& db_;
  AdminLevel level_;
  AssocWrites* out_;
  SacctmgrReply reply_;
  std::vector<std::string> names_;
  std::vector<KV> where_;
  std::vector<KV> set_;
};

Expected<SacctmgrReply> AssocDb::Execute(const SacctmgrRequest& req, AdminLevel level,
                                         AssocWrites* out) {
  // Work on a copy so a failed request changes nothing.
  AssocDb scratch = *this;
  AssocWrites writes;
  AssocEdit edit(&scratch, level, &writes);
  ASSIGN_OR_RETURN(SacctmgrReply reply, edit.Run(req));
  *this = std::move(scratch);
  Reindex();
  out->puts.insert(out->puts.end(), writes.puts.begin(), writes.puts.end());
  out->erase.insert(out->erase.end(), writes.erase.begin(), writes.erase.end());
  return reply;
}

}  // namespace sluice::ctld
