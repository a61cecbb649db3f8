#include "cli/sacctmgr_json.h"

#include <map>

#include "cli/query_json.h"
#include "common/text_util.h"

namespace sluice {
namespace {

using nlohmann::json;

json NullOr(bool has, int64_t v) { return has ? json(v) : json(); }

json Strings(const google::protobuf::RepeatedPtrField<std::string>& l) {
  json out = json::array();
  for (const std::string& s : l) out.push_back(s);
  return out;
}

// "cpu=4,gres/gpu=2" -> [{"type": "cpu", "name": "", "count": 4}, {"type": "gres", ...}]
json TresList(const std::string& tres) {
  json out = json::array();
  for (std::string_view item : Split(tres, ',')) {
    size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) continue;
    std::string_view key = item.substr(0, eq);
    size_t slash = key.find('/');
    int64_t count = 0;
    ParseNonNegative(item.substr(eq + 1), &count);
    out.push_back(
        {{"type", std::string(key.substr(0, slash))},
         {"name", slash == std::string_view::npos ? "" : std::string(key.substr(slash + 1))},
         {"count", count}});
  }
  return out;
}

json AssocRef(const std::string& account, const std::string& cluster, const std::string& user) {
  return {{"account", account}, {"cluster", cluster}, {"partition", json()}, {"user", user}};
}

json AssocMax(const AssocLimits& l) {
  return {
      {"jobs",
       {{"active", NullOr(l.has_max_jobs(), l.max_jobs())},
        {"total", NullOr(l.has_max_submit_jobs(), l.max_submit_jobs())},
        {"per", {{"wall_clock", NullOr(l.has_max_wall_min(), l.max_wall_min())}}}}},
      {"tres",
       {{"per", {{"job", TresList(l.max_tres_per_job())}}},
        {"group", {{"active", TresList(l.grp_tres())}, {"minutes", TresList(l.grp_tres_mins())}}}}},
      {"group",
       {{"jobs", NullOr(l.has_grp_jobs(), l.grp_jobs())},
        {"submitted", NullOr(l.has_grp_submit_jobs(), l.grp_submit_jobs())}}}};
}

json Association(const std::string& cluster, const std::string& account, const std::string& user,
                 const std::string& parent, int64_t shares, const AssocLimits& limits,
                 const google::protobuf::RepeatedPtrField<std::string>& qos,
                 const std::string& default_qos, bool is_default) {
  json a = AssocRef(account, cluster, user);
  a["parent_account"] = parent;
  a["shares_raw"] = shares;
  a["is_default"] = is_default;
  a["qos"] = qos.empty() ? json::array({"normal"}) : Strings(qos);
  a["default"] = {{"qos", default_qos}};
  a["max"] = AssocMax(limits);
  a["flags"] = json::array();
  return a;
}

const char* PreemptModeName(QosPreemptMode m) {
  switch (m) {
    case QOS_PREEMPT_OFF:
      return "OFF";
    case QOS_PREEMPT_CANCEL:
      return "CANCEL";
    case QOS_PREEMPT_REQUEUE:
      return "REQUEUE";
    case QOS_PREEMPT_SUSPEND:
      return "SUSPEND";
    default:
      return "CLUSTER";
  }
}

json Accounts(const SacctmgrReply& r, const std::string& cluster) {
  json out = json::array();
  for (const AssocAccount& a : r.accounts()) {
    json assocs = json::array({AssocRef(a.name(), cluster, "")});
    for (const AssocUser& u : r.users())
      if (u.account() == a.name()) assocs.push_back(AssocRef(a.name(), cluster, u.user()));
    out.push_back({{"name", a.name()},
                   {"description", a.description()},
                   {"organization", a.organization()},
                   {"associations", assocs},
                   {"coordinators", json::array()},
                   {"flags", json::array()}});
  }
  return out;
}

json Associations(const SacctmgrReply& r, const std::string& cluster) {
  json out = json::array();
  for (const AssocAccount& a : r.accounts()) {
    out.push_back(Association(cluster, a.name(), "", a.parent(), a.shares(), a.limits(), a.qos(),
                              a.default_qos(), false));
    for (const AssocUser& u : r.users()) {
      if (u.account() != a.name()) continue;
      out.push_back(Association(cluster, u.account(), u.user(), a.name(), u.shares(), u.limits(),
                                u.qos(), u.default_qos(), u.default_account() == u.account()));
    }
  }
  return out;
}

json Users(const SacctmgrReply& r, const std::string& cluster) {
  std::map<std::string, json> by_name;
  for (const AssocUser& u : r.users()) {
    auto [it, fresh] = by_name.try_emplace(u.user());
    if (fresh) {
      it->second = {{"name", u.user()},
                    {"administrator_level", u.admin_level().empty() ? "None" : u.admin_level()},
                    {"default", {{"account", u.default_account()}, {"wckey", ""}}},
                    {"associations", json::array()},
                    {"coordinators", json::array()},
                    {"flags", json::array()}};
    }
    it->second["associations"].push_back(AssocRef(u.account(), cluster, u.user()));
  }
  json out = json::array();
  for (auto& [name, u] : by_name) out.push_back(std::move(u));
  return out;
}

json Qos(const SacctmgrReply& r) {
  json out = json::array();
  int id = 0;
  for (const QosInfo& q : r.qos()) {
    const AssocLimits& l = q.limits();
    json limits = {
        {"grace_time", q.grace_time_s()},
        {"max",
         {{"jobs",
           {{"active_jobs", {{"per", {{"user", NullOr(l.has_max_jobs(), l.max_jobs())}}}}}}},
          {"tres",
           {{"per",
             {{"job", TresList(l.max_tres_per_job())}, {"user", TresList(l.max_tres_per_user())}}},
            {"total", TresList(l.grp_tres())},
            {"minutes", TresList(l.grp_tres_mins())}}},
          {"wall_clock", {{"per", {{"job", NullOr(l.has_max_wall_min(), l.max_wall_min())}}}}}}}};
    out.push_back(
        {{"name", q.name()},
         {"id", ++id},
         {"description", q.description()},
         {"flags", Strings(q.flags())},
         {"priority", q.priority()},
         {"usage_factor", q.usage_factor()},
         {"limits", limits},
         {"preempt",
          {{"list", Strings(q.preempt())}, {"mode", {PreemptModeName(q.preempt_mode())}}}}});
  }
  return out;
}

json Tres(const std::vector<TresRow>& tres) {
  json out = json::array();
  for (const TresRow& t : tres) out.push_back({{"type", t.type}, {"name", t.name}, {"id", t.id}});
  return out;
}

}  // namespace

std::vector<TresRow> ClusterTres(const std::vector<std::string>& gres_types) {
  std::vector<TresRow> out = {{"cpu", "", 1},  {"mem", "", 2},     {"energy", "", 3},
                              {"node", "", 4}, {"billing", "", 5}, {"fs", "disk", 6},
                              {"vmem", "", 7}, {"pages", "", 8}};
  int id = 1001;
  for (const std::string& g : gres_types) out.push_back({"gres", g, id++});
  return out;
}

std::string FormatSacctmgrJson(const SacctmgrCommand& cmd, const SacctmgrReply& reply,
                               const std::vector<TresRow>& tres) {
  const std::string cluster = reply.clusters().empty() ? "" : reply.clusters(0).name();
  const std::string& e = cmd.request.entity();
  json root{{"meta", OpenApiMeta()}, {"errors", json::array()}};
  if (e == "account") {
    root["accounts"] = Accounts(reply, cluster);
  } else if (e == "association") {
    root["associations"] = Associations(reply, cluster);
  } else if (e == "user") {
    root["users"] = Users(reply, cluster);
  } else if (e == "qos") {
    root["QOS"] = Qos(reply);
  } else if (e == "cluster") {
    json list = json::array();
    for (const AssocCluster& c : reply.clusters()) {
      list.push_back({{"name", c.name()},
                      {"nodes", ""},
                      {"flags", json::array()},
                      {"controller", {{"host", ""}, {"port", 0}}},
                      {"rpc_version", 9728},
                      {"select_plugin", "select/cons_tres"},
                      {"associations", {{"root", AssocRef("root", c.name(), "")}}},
                      {"tres", Tres(tres)}});
    }
    root["clusters"] = list;
  } else if (e == "wckey") {
    root["wckeys"] = json::array();
  } else {
    root["TRES"] = Tres(tres);
  }
  return root.dump(2) + "\n";
}

}  // namespace sluice
