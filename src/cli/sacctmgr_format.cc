#include "cli/sacctmgr_format.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

struct FieldDef {
  const char* key;  // canonical, lower case
  const char* header;
  int width;
  std::vector<const char*> aliases;
};

const std::vector<FieldDef>& Fields() {
  static const auto* f = new std::vector<FieldDef>{
      {"cluster", "Cluster", 10, {"clusters"}},
      {"controlhost", "ControlHost", 15, {}},
      {"controlport", "ControlPort", 12, {}},
      {"rpc", "RPC", 5, {}},
      {"account", "Account", 10, {"acct", "accounts"}},
      {"description", "Descr", 20, {"descr"}},
      {"organization", "Org", 20, {"org"}},
      {"parentname", "ParentName", 10, {"parent"}},
      {"user", "User", 10, {"users"}},
      {"defaultaccount", "Def Acct", 10, {"defacct", "defaultacct"}},
      {"adminlevel", "Admin", 9, {"admin"}},
      {"partition", "Partition", 10, {}},
      {"fairshare", "Share", 9, {"share", "shares"}},
      {"grpjobs", "GrpJobs", 7, {}},
      {"grptres", "GrpTRES", 13, {}},
      {"grptresmins", "GrpTRESMins", 13, {}},
      {"grpsubmit", "GrpSubmit", 9, {"grpsubmitjobs"}},
      {"maxjobs", "MaxJobs", 7, {}},
      {"maxtres", "MaxTRES", 13, {"maxtresperjob"}},
      {"maxsubmit", "MaxSubmit", 9, {"maxsubmitjobs"}},
      {"maxwall", "MaxWall", 11, {"maxwalldurationperjob"}},
      {"qos", "QOS", 20, {}},
      {"defaultqos", "Def QOS", 9, {"defqos"}},
      {"name", "Name", 10, {}},
      {"priority", "Priority", 10, {}},
      {"gracetime", "GraceTime", 10, {}},
      {"preempt", "Preempt", 10, {}},
      {"preemptmode", "PreemptMode", 11, {}},
      {"flags", "Flags", 10, {}},
      {"usagefactor", "UsageFactor", 11, {}},
      {"maxtrespu", "MaxTRESPU", 13, {"maxtresperuser"}},
      {"maxjobspu", "MaxJobsPU", 9, {"maxjobsperuser"}},
      {"maxsubmitpu", "MaxSubmitPU", 11, {"maxsubmitjobsperuser"}},
      {"type", "Type", 8, {}},
      {"id", "ID", 6, {}},
  };
  return *f;
}

const FieldDef* FindField(const std::string& name) {
  for (const auto& f : Fields()) {
    if (name == f.key) return &f;
    for (const char* a : f.aliases)
      if (name == a) return &f;
  }
  const FieldDef* match = nullptr;  // unique prefix
  for (const auto& f : Fields()) {
    if (std::string(f.key).rfind(name, 0) == 0) {
      if (match) return nullptr;
      match = &f;
    }
  }
  return match;
}

using Row = std::map<std::string, std::string>;

std::string Opt(bool has, int64_t v) { return has ? std::to_string(v) : ""; }

std::string Join(const google::protobuf::RepeatedPtrField<std::string>& l) {
  std::string out;
  for (const auto& s : l) out += (out.empty() ? "" : ",") + s;
  return out;
}

void PutLimits(const AssocLimits& l, Row* r) {
  (*r)["grpjobs"] = Opt(l.has_grp_jobs(), l.grp_jobs());
  (*r)["grptres"] = l.grp_tres();
  (*r)["grptresmins"] = l.grp_tres_mins();
  (*r)["grpsubmit"] = Opt(l.has_grp_submit_jobs(), l.grp_submit_jobs());
  (*r)["maxjobs"] = Opt(l.has_max_jobs(), l.max_jobs());
  (*r)["maxtres"] = l.max_tres_per_job();
  (*r)["maxsubmit"] = Opt(l.has_max_submit_jobs(), l.max_submit_jobs());
  (*r)["maxwall"] = l.has_max_wall_min() ? FormatHms(l.max_wall_min() * 60) : "";
  (*r)["maxtrespu"] = l.max_tres_per_user();
  (*r)["maxjobspu"] = (*r)["maxjobs"];
  (*r)["maxsubmitpu"] = (*r)["maxsubmit"];
}

std::string Qos(const google::protobuf::RepeatedPtrField<std::string>& l) {
  return l.empty() ? "normal" : Join(l);
}

Row AccountRow(const AssocAccount& a, const std::string& cluster) {
  Row r{{"account", a.name()},
        {"description", a.description()},
        {"organization", a.organization()},
        {"cluster", cluster},
        {"parentname", a.parent()},
        {"fairshare", std::to_string(a.shares())},
        {"qos", Qos(a.qos())},
        {"defaultqos", a.default_qos()},
        {"name", a.name()}};
  PutLimits(a.limits(), &r);
  return r;
}

Row UserRow(const AssocUser& u, const std::string& cluster) {
  Row r{{"user", u.user()},
        {"defaultaccount", u.default_account()},
        {"adminlevel", u.admin_level().empty() ? "None" : u.admin_level()},
        {"cluster", cluster},
        {"account", u.account()},
        {"fairshare", std::to_string(u.shares())},
        {"qos", Qos(u.qos())},
        {"defaultqos", u.default_qos()},
        {"name", u.user()}};
  PutLimits(u.limits(), &r);
  return r;
}

const char* ModeName(QosPreemptMode m) {
  switch (m) {
    case QOS_PREEMPT_OFF:
      return "off";
    case QOS_PREEMPT_CANCEL:
      return "cancel";
    case QOS_PREEMPT_REQUEUE:
      return "requeue";
    case QOS_PREEMPT_SUSPEND:
      return "suspend";
    default:
      return "cluster";
  }
}

Row QosRow(const QosInfo& q) {
  Row r{{"name", q.name()},
        {"priority", std::to_string(q.priority())},
        {"gracetime", FormatHms(q.grace_time_s())},
        {"preempt", Join(q.preempt())},
        {"preemptmode", ModeName(q.preempt_mode())},
        {"flags", Join(q.flags())},
        {"usagefactor", fmt::format("{:.6f}", q.usage_factor())},
        {"description", q.description()}};
  PutLimits(q.limits(), &r);
  return r;
}

std::vector<std::string> Defaults(const SacctmgrCommand& c) {
  const std::string& e = c.request.entity();
  const std::vector<std::string> limits = {"grpjobs", "grptres", "grpsubmit",
                                           "maxjobs", "maxtres", "maxsubmit",
                                           "maxwall", "qos",     "defaultqos"};
  std::vector<std::string> out;
  if (e == "cluster") {
    out = {"cluster", "controlhost", "controlport", "rpc", "fairshare"};
    out.insert(out.end(), limits.begin(), limits.end());
  } else if (e == "account") {
    out = {"account", "description", "organization"};
    if (c.associations) {
      for (const char* k : {"cluster", "parentname", "user", "fairshare"}) out.push_back(k);
      out.insert(out.end(), limits.begin(), limits.end());
    }
  } else if (e == "user") {
    out = {"user", "defaultaccount", "adminlevel"};
    if (c.associations) {
      for (const char* k : {"cluster", "account", "partition", "fairshare", "maxjobs", "maxtres",
                            "maxsubmit", "maxwall", "grptres", "qos", "defaultqos"})
        out.push_back(k);
    }
  } else if (e == "association") {
    out = {"cluster", "account", "user", "partition", "fairshare"};
    out.insert(out.end(), limits.begin(), limits.end());
  } else if (e == "tres") {
    out = {"type", "name", "id"};
  } else if (e == "wckey") {
    out = {"name", "cluster", "user"};
  } else {
    out = {"name",        "priority",  "gracetime",   "preempt",    "preemptmode", "flags",
           "usagefactor", "grptres",   "grptresmins", "grpjobs",    "grpsubmit",   "maxtres",
           "maxwall",     "maxtrespu", "maxjobspu",   "maxsubmitpu"};
  }
  return out;
}

std::vector<Row> Rows(const SacctmgrCommand& c, const SacctmgrReply& reply,
                      const std::string& cluster, const std::vector<TresRow>& tres) {
  std::vector<Row> rows;
  const std::string& e = c.request.entity();
  if (e == "tres") {
    for (const TresRow& t : tres)
      rows.push_back({{"type", t.type}, {"name", t.name}, {"id", std::to_string(t.id)}});
  } else if (e == "wckey") {
  } else if (e == "cluster") {
    for (const auto& cl : reply.clusters())
      rows.push_back(
          {{"cluster", cl.name()}, {"fairshare", "1"}, {"qos", "normal"}, {"rpc", "9728"}});
  } else if (e == "account") {
    for (const auto& a : reply.accounts()) {
      rows.push_back(AccountRow(a, cluster));
      if (!c.associations) continue;
      for (const auto& u : reply.users()) {
        if (u.account() != a.name()) continue;
        Row r = UserRow(u, cluster);
        r["description"] = a.description();
        r["organization"] = a.organization();
        r["parentname"] = "";
        rows.push_back(r);
      }
    }
  } else if (e == "user") {
    std::set<std::string> seen;
    for (const auto& u : reply.users()) {
      if (!c.associations && !seen.insert(u.user()).second) continue;
      rows.push_back(UserRow(u, cluster));
    }
  } else if (e == "association") {
    for (const auto& a : reply.accounts()) {
      Row r = AccountRow(a, cluster);
      r["user"] = "";
      rows.push_back(r);
      for (const auto& u : reply.users())
        if (u.account() == a.name()) rows.push_back(UserRow(u, cluster));
    }
  } else {
    for (const auto& q : reply.qos()) rows.push_back(QosRow(q));
  }
  return rows;
}

std::string Cell(const std::string& v, int width) {
  size_t w = static_cast<size_t>(width < 0 ? -width : width);
  std::string s = v;
  if (s.size() > w) s = w == 0 ? "" : s.substr(0, w - 1) + "+";
  std::string pad(w - s.size(), ' ');
  return width < 0 ? s + pad : pad + s;
}

}  // namespace

Expected<std::string> FormatSacctmgrShow(const SacctmgrCommand& cmd, const SacctmgrReply& reply,
                                         const std::string& cluster,
                                         const std::vector<TresRow>& tres) {
  std::vector<SacctmgrField> fields = cmd.format;
  if (fields.empty())
    for (const auto& k : Defaults(cmd)) fields.push_back({k, 0, false});
  struct Col {
    const FieldDef* def;
    int width;
  };
  std::vector<Col> cols;
  for (const auto& f : fields) {
    const FieldDef* d = FindField(f.name);
    if (!d) return InvalidArgument(fmt::format("Unknown field '{}'", f.name));
    cols.push_back({d, f.has_width ? f.width : d->width});
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cmd.parsable) {
        out += cells[i];
        if (i + 1 < cells.size() || cmd.parsable == 1) out += "|";
      } else {
        out += Cell(cells[i], cols[i].width) + " ";
      }
    }
    out += "\n";
  };
  if (!cmd.noheader) {
    std::vector<std::string> h;
    for (const auto& c : cols) h.push_back(c.def->header);
    line(h);
    if (!cmd.parsable) {
      for (const auto& c : cols) out += std::string(c.width < 0 ? -c.width : c.width, '-') + " ";
      out += "\n";
    }
  }
  for (const Row& r : Rows(cmd, reply, cluster, tres)) {
    std::vector<std::string> cells;
    for (const auto& c : cols) {
      auto it = r.find(c.def->key);
      cells.push_back(it == r.end() ? "" : it->second);
    }
    line(cells);
  }
  return out;
}

}  // namespace sluice
