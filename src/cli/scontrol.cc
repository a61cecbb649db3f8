#include "cli/scontrol.h"
#include "cli/step_view.h"

#include <signal.h>

#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cli/array_view.h"
#include "cli/help_text.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"
#include "cli/own_config.h"
#include "cli/query_json.h"
#include "cli/scontrol_admin.h"
#include "cli/scontrol_resv.h"
#include "cli/scontrol_show.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

enum Opt {
  kOneLiner = 1,
  kDetails,
  kQuiet,
  kVerbose,
  kVersion,
  kHelp,
  kIgnored,
  kUnsupported,
  kJson
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"oneliner", 'o', ArgKind::kNone, kOneLiner},
      {"details", 'd', ArgKind::kNone, kDetails},
      {"quiet", 'Q', ArgKind::kNone, kQuiet},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kHelp},
      {"all", 'a', ArgKind::kNone, kIgnored},
      {"cluster", 'M', ArgKind::kRequired, kIgnored},
      {"clusters", 0, ArgKind::kRequired, kIgnored},
      {"federation", 0, ArgKind::kNone, kIgnored},
      {"future", 'F', ArgKind::kNone, kIgnored},
      {"hide", 0, ArgKind::kNone, kIgnored},
      {"local", 0, ArgKind::kNone, kIgnored},
      {"sibling", 0, ArgKind::kNone, kIgnored},
      {"json", 0, ArgKind::kNone, kJson},
      {"yaml", 0, ArgKind::kNone, kUnsupported},
  };
  return *d;
}

struct Ctx {
  CliEnv& env;
  bool oneliner = false;
  bool quiet = false;
  bool json = false;  // --json: show job / show node as squeue / sinfo --json (query_json.h)
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

// Unambiguous prefix match of `word` (at least `min` chars) against `full`.
bool Is(const std::string& word, const char* full, size_t min = 1) {
  std::string w = Lower(word);
  return w.size() >= min && std::string(full).compare(0, w.size(), w) == 0;
}

int Error(Ctx& c, const std::string& msg) {
  if (!c.quiet) *c.env.err << msg << "\n";
  return 1;
}

Expected<ClientApiInterface*> Api(Ctx& c) { return c.env.connect(); }

void Print(Ctx& c, const std::string& record) {
  *c.env.out << (c.oneliner ? OneLiner(record) : record);
}

int ShowJobs(Ctx& c, const std::vector<std::string>& ids) {
  GetJobsRequest req;
  std::vector<JobSelector> sels;
  for (const std::string& w : ids) {
    Expected<std::vector<JobSelector>> v = ParseJobSelectors(w);
    if (!v.ok()) return Error(c, "slurm_load_jobs error: Invalid job id specified");
    sels.insert(sels.end(), v->begin(), v->end());
  }
  AddSelectors(sels, &req);
  req.set_compress_pending_tasks(!c.json);   // as CompressPendingTasks below (see squeue.cc)
  req.set_explain(!ids.empty() && !c.json);  // Explanation= of the pending jobs named
  Expected<ClientApiInterface*> api = Api(c);
  Expected<GetJobsReply> rep =
      api.ok() ? (*api)->GetJobs(req) : Expected<GetJobsReply>(api.status());
  if (!rep.ok()) return Error(c, "slurm_load_jobs error: " + rep.status().message());
  int64_t now = rep->now() > 0 ? rep->now() : c.env.clock->Now();
  int shown = 0;
  std::vector<JobInfo*> jobs;
  for (JobInfo& j : *rep->mutable_jobs()) {
    if (sels.empty() || AnySelectorMatches(sels, j)) jobs.push_back(&j);
  }
  if (c.json) {
    if (jobs.empty() && !sels.empty())
      return Error(c, "slurm_load_jobs error: Invalid job id specified");
    std::vector<JobInfo> all;
    for (const JobInfo* j : jobs) all.push_back(*j);
    *c.env.out << FormatSqueueJson(all, LoadOwnConfig(c.env).cluster_name);
    return 0;
  }
  CompressPendingTasks(&jobs);
  for (const JobInfo* j : jobs) {
    Print(c, FormatJobRecord(*j, now));
    ++shown;
  }
  if (shown == 0 && !sels.empty())
    return Error(c, "slurm_load_jobs error: Invalid job id specified");
  if (shown == 0) *c.env.out << "No jobs in the system\n";
  return 0;
}

int ShowNodes(Ctx& c, const std::vector<std::string>& names) {
  GetNodesRequest req;
  std::vector<std::string> wanted;
  for (const std::string& n : names) {
    Expected<std::vector<std::string>> h = ExpandHostlist(n);
    if (!h.ok()) return Error(c, "Node " + n + " not found");
    wanted.insert(wanted.end(), h->begin(), h->end());
  }
  for (const std::string& w : wanted) req.add_names(w);
  Expected<ClientApiInterface*> api = Api(c);
  Expected<GetNodesReply> rep =
      api.ok() ? (*api)->GetNodes(req) : Expected<GetNodesReply>(api.status());
  if (!rep.ok()) return Error(c, "slurm_load_node error: " + rep.status().message());
  for (const std::string& w : wanted) {
    bool found = std::any_of(rep->nodes().begin(), rep->nodes().end(),
                             [&](const NodeInfo& n) { return n.name() == w; });
    if (!found) return Error(c, "Node " + w + " not found");
  }
  std::vector<NodeInfo> shown;
  for (const NodeInfo& n : rep->nodes()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), n.name()) == wanted.end())
      continue;
    if (!c.json) Print(c, FormatNodeRecord(n, c.env.user_name));
    shown.push_back(n);
  }
  if (c.json) *c.env.out << FormatSinfoJson(shown, c.env.user_name);
  return 0;
}

int ShowPartitions(Ctx& c, const std::vector<std::string>& names) {
  Expected<ClientApiInterface*> api = Api(c);
  Expected<GetPartitionsReply> parts =
      api.ok() ? (*api)->GetPartitions({}) : Expected<GetPartitionsReply>(api.status());
  Expected<GetNodesReply> nodes =
      parts.ok() ? (*api)->GetNodes({}) : Expected<GetNodesReply>(parts.status());
  if (!nodes.ok()) return Error(c, "slurm_load_partitions error: " + nodes.status().message());
  std::vector<NodeInfo> node_list(nodes->nodes().begin(), nodes->nodes().end());
  int shown = 0;
  for (const PartitionInfo& p : parts->partitions()) {
    if (!names.empty() && std::find(names.begin(), names.end(), p.name()) == names.end()) continue;
    Print(c, FormatPartitionRecord(p, node_list));
    ++shown;
  }
  if (shown == 0 && !names.empty()) return Error(c, "Partition " + names[0] + " not found");
  if (shown == 0) *c.env.out << "No partitions in the system\n";
  return 0;
}

std::string ControllerHost(const GetConfigReply& cfg) {
  for (int i = 0; i < cfg.keys_size() && i < cfg.values_size(); ++i)
    if (Lower(cfg.keys(i)) == "slurmctldhost") return cfg.values(i);
  return "localhost";
}

// scontrol ping with several SlurmctldHost lines: each controller, UP when it answers
// (leading or standing by); exit 1 when one is DOWN.
int PingEach(Ctx& c, const std::vector<CtldHost>& hosts) {
  Expected<ClientApiInterface*> api = Api(c);
  const std::vector<bool> up =
      api.ok() ? (*api)->PingEach() : std::vector<bool>(hosts.size(), false);
  int rc = 0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string role = i == 0             ? "primary"
                             : hosts.size() > 2 ? "backup" + std::to_string(i)
                                                : "backup";
    const bool is_up = i < up.size() && up[i];
    *c.env.out << "Slurmctld(" << role << ") at " << hosts[i].name << " is "
               << (is_up ? "UP" : "DOWN") << "\n";
    if (!is_up) rc = 1;
  }
  return rc;
}

int ShowConfig(Ctx& c, bool ping) {
  if (ping) {
    const std::vector<CtldHost> hosts = LoadOwnConfig(c.env).Controllers();
    if (hosts.size() > 1) return PingEach(c, hosts);
  }
  Expected<ClientApiInterface*> api = Api(c);
  Expected<GetConfigReply> cfg =
      api.ok() ? (*api)->GetConfig({}) : Expected<GetConfigReply>(api.status());
  if (!cfg.ok()) {
    if (ping) {
      *c.env.out << "Slurmctld(primary) is DOWN\n";
      return 1;
    }
    return Error(c, "slurm_load_ctl_conf error: " + cfg.status().message());
  }
  if (!ping) {
    *c.env.out << "Configuration data as of " << FormatTimestamp(c.env.clock->Now()) << "\n";
    for (int i = 0; i < cfg->keys_size() && i < cfg->values_size(); ++i)
      *c.env.out << std::left << std::setw(23) << cfg->keys(i) << " = " << cfg->values(i) << "\n";
    *c.env.out << "\n";
  }
  *c.env.out << "Slurmctld(primary) at " << ControllerHost(*cfg) << " is UP\n";
  return 0;
}

int ShowHosts(Ctx& c, const std::string& what, std::vector<std::string> rest) {
  std::string expr;
  for (const std::string& r : rest) expr += (expr.empty() ? "" : ",") + r;
  if (expr.empty() && what == "hostnames") {
    expr = c.env.Getenv("SLURM_JOB_NODELIST");
    if (expr.empty()) expr = c.env.Getenv("SLURM_NODELIST");
  }
  if (expr.empty()) return Error(c, "scontrol: error: host list is empty");
  Expected<std::vector<std::string>> hosts = ExpandHostlist(expr);
  if (!hosts.ok()) return Error(c, "scontrol: error: Invalid hostlist: " + expr);
  if (what == "hostnames") {
    for (const std::string& h : *hosts) *c.env.out << h << "\n";
  } else if (what == "hostlist") {
    *c.env.out << CompressHostlist(*hosts) << "\n";
  } else {
    *c.env.out << CompressHostlistSorted(*hosts) << "\n";
  }
  return 0;
}

int Show(Ctx& c, std::vector<std::string> args) {
  if (args.empty()) return Error(c, "scontrol: error: too few arguments for keyword:show");
  std::string entity = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  size_t eq = entity.find('=');  // "show hostnames=node[1-2]"
  if (eq != std::string::npos) {
    rest.insert(rest.begin(), entity.substr(eq + 1));
    entity = entity.substr(0, eq);
  }
  std::string e = Lower(entity);
  if (e == "hostlist" || e == "hostlistsorted") return ShowHosts(c, e, rest);
  if (Is(e, "hostnames", 5)) return ShowHosts(c, "hostnames", rest);
  if (Is(e, "jobs", 1)) return ShowJobs(c, rest);
  if (Is(e, "nodes", 1)) return ShowNodes(c, rest);
  if (c.json)
    return Error(c, "scontrol: error: --json is supported for show job and show node only");
  if (Is(e, "partitions", 1)) return ShowPartitions(c, rest);
  if (Is(e, "config", 1)) return ShowConfig(c, false);
  if (Is(e, "reservations", 3))
    return ScontrolReservation(c.env, RESV_SHOW, rest, c.oneliner, c.quiet);
  if (Is(e, "steps", 2)) return ShowSteps(c.env, rest, c.oneliner);
  return Error(c, "scontrol: error: invalid entity:" + entity + " for keyword:show");
}

int RunScontrolUpdate(Ctx& c, const std::vector<std::string>& args);
int RunScontrolJobAction(Ctx& c, JobAction action, const std::vector<std::string>& args);

}  // namespace

int RunScontrol(const std::vector<std::string>& args, CliEnv& env) {
  // Options anywhere, as getopt_long permutes them: "scontrol show node n1 -o".
  Expected<ParsedArgs> parsed = ParseCommandLine("scontrol", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"scontrol --help\" for more information\n";
    return 1;
  }
  Ctx c{env};
  bool version = false, help = false;
  for (const ParsedOption& o : parsed->options) {
    if (o.id == kOneLiner) c.oneliner = true;
    if (o.id == kQuiet) c.quiet = true;
    if (o.id == kJson) c.json = true;
    if (o.id == kVersion) version = true;
    if (o.id == kHelp) help = true;
    if (o.id == kUnsupported)
      return Error(c, "scontrol: error: " + o.spelled + " is not supported yet");
  }
  std::vector<std::string> words = parsed->positionals;
  if (version || (!words.empty() && Is(words[0], "version", 4))) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (help || words.empty() || Is(words[0], "help", 2)) {
    *env.out << HelpText("scontrol", HelpKind::kHelp);
    return words.empty() && !help ? 1 : 0;
  }
  std::string cmd = words[0];
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (Is(cmd, "show", 3)) return Show(c, rest);
  if (Is(cmd, "update", 2)) return RunScontrolUpdate(c, rest);
  if (Is(cmd, "hold", 2)) return RunScontrolJobAction(c, JOB_ACTION_HOLD, rest);
  if (Is(cmd, "uhold", 2)) return RunScontrolJobAction(c, JOB_ACTION_UHOLD, rest);
  if (Is(cmd, "release", 3)) return RunScontrolJobAction(c, JOB_ACTION_RELEASE, rest);
  if (Is(cmd, "requeuehold", 8)) return RunScontrolJobAction(c, JOB_ACTION_REQUEUE_HOLD, rest);
  if (Is(cmd, "requeue", 3)) return RunScontrolJobAction(c, JOB_ACTION_REQUEUE, rest);
  if (Is(cmd, "ping", 2)) return ShowConfig(c, true);
  if (Is(cmd, "token", 3)) return ScontrolToken(env, rest);
  if (Is(cmd, "setdebug", 2)) return ScontrolSetDebug(env, rest);
  if (Is(cmd, "takeover", 2)) return ScontrolTakeover(env, rest);
  if (Is(cmd, "reconfigure", 3)) return ScontrolReconfigure(env, rest);
  if (Is(cmd, "create", 2) || Is(cmd, "delete", 3)) {
    const bool create = Is(cmd, "create", 2);
    // "create reservation K=V..." / "create Reservation=NAME ..." / "delete ReservationName=NAME"
    if (rest.empty()) return Error(c, "scontrol: error: too few arguments for keyword:" + cmd);
    const std::string what = Lower(rest[0].substr(0, rest[0].find('=')));
    if (!Is(what, "reservationname", 3))
      return Error(c, "scontrol: error: invalid entity:" + rest[0] + " for keyword:" + cmd);
    std::vector<std::string> args = rest;
    if (rest[0].find('=') == std::string::npos)
      args.erase(args.begin());
    else if (!create)
      args = {rest[0]};
    else if (what != "reservationname" && what != "reservation")
      args.erase(args.begin());
    return ScontrolReservation(env, create ? RESV_CREATE : RESV_DELETE, args, c.oneliner, c.quiet);
  }
  return Error(c, "invalid keyword: " + cmd);
}

// ---- update / hold / release / requeue ----

namespace {

std::pair<std::string, std::string> KeyValue(const std::string& arg) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos) return {Lower(arg), ""};
  return {Lower(arg.substr(0, eq)), arg.substr(eq + 1)};
}

int UpdateNode(Ctx& c, const std::vector<std::string>& args) {
  UpdateNodeRequest req;
  std::string reason;
  bool in_reason = false;
  for (const std::string& a : args) {
    auto [k, v] = KeyValue(a);
    if (a.find('=') == std::string::npos && in_reason) {
      reason += " " + a;
      continue;
    }
    in_reason = false;
    if (k == "nodename") {
      Expected<std::vector<std::string>> h = ExpandHostlist(v);
      if (!h.ok() || h->empty())
        return Error(c, "scontrol: error: Invalid node name specified: " + v);
      for (const std::string& n : *h) req.add_names(n);
    } else if (k == "state") {
      std::string up = v;
      std::transform(up.begin(), up.end(), up.begin(), ::toupper);
      if (up != "DRAIN" && up != "RESUME" && up != "DOWN" && up != "UNDRAIN" && up != "IDLE")
        return Error(c, "scontrol: error: Invalid node state specified");
      req.set_state(up);
    } else if (k == "reason") {
      reason = v;
      in_reason = true;
    } else {
      return Error(c, "Update of this parameter is not supported: " + a + "\nRequest aborted");
    }
  }
  if ((req.state() == "DRAIN" || req.state() == "DOWN") && reason.empty())
    return Error(c, "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  req.set_reason(reason);
  Expected<ClientApiInterface*> api = Api(c);
  Expected<UpdateNodeReply> rep =
      api.ok() ? (*api)->UpdateNode(req) : Expected<UpdateNodeReply>(api.status());
  if (!rep.ok()) return Error(c, "slurm_update error: " + rep.status().message());
  return 0;
}

int UpdateJob(Ctx& c, const std::vector<std::string>& args) {
  UpdateJobRequest req;
  req.set_action(JOB_ACTION_UPDATE);
  for (const std::string& a : args) {
    auto [k, v] = KeyValue(a);
    if (k == "jobid") {
      Expected<std::vector<int64_t>> ids = ParseJobIdList(v);
      if (!ids.ok()) return Error(c, "slurm_update error: Invalid job id specified");
      for (int64_t id : *ids) req.add_job_ids(id);
    } else if (k == "timelimit") {
      Expected<int64_t> t = ParseTimeLimitMinutes(v);
      if (!t.ok()) return Error(c, "Invalid TimeLimit value");
      req.set_time_limit_min(*t);
      req.set_set_time_limit(true);
    } else if (k == "name" || k == "jobname") {
      req.set_name(v);
    } else if (k == "comment") {
      req.set_comment(v);
    } else if (k == "nice") {
      req.set_nice(std::atoll(v.c_str()));
    } else {
      return Error(c, "Update of this parameter is not supported: " + a + "\nRequest aborted");
    }
  }
  if (req.job_ids().empty() && req.exact_job_ids().empty())
    return Error(c, "No job identification provided");
  Expected<ClientApiInterface*> api = Api(c);
  Expected<UpdateJobReply> rep =
      api.ok() ? (*api)->UpdateJob(req) : Expected<UpdateJobReply>(api.status());
  if (!rep.ok()) return Error(c, "slurm_update error: " + rep.status().message());
  return 0;
}

int RunScontrolUpdate(Ctx& c, const std::vector<std::string>& args) {
  if (args.empty()) return Error(c, "scontrol: error: too few arguments for keyword:update");
  for (const std::string& a : args) {
    std::string k = KeyValue(a).first;
    if (k == "nodename") return UpdateNode(c, args);
    if (k == "jobid") return UpdateJob(c, args);
    if (k == "reservationname" || k == "reservation")
      return ScontrolReservation(c.env, RESV_UPDATE, args, c.oneliner, c.quiet);
  }
  return Error(c,
               "No valid entity in update command\nInput line must include \"NodeName\", "
               "\"PartitionName\", \"Reservation/ReservationName\", or \"JobId\"");
}

// `scontrol requeue` of its own job (Lightning and submitit call it from rank 0's signal
// handler): right after the controller answers, the requeue SIGTERMs the job's processes,
// this one among them, which could die before it reports the result. So SIGTERM is
// ignored from here on (process-wide: gRPC's threads would take a blocked one); the
// SIGKILL KillWait later still ends everything.
void ShieldOwnRequeue(const CliEnv& env, const UpdateJobRequest& req) {
  bool rq = req.action() == JOB_ACTION_REQUEUE || req.action() == JOB_ACTION_REQUEUE_HOLD;
  std::string own = env.Getenv("SLURM_JOB_ID");
  if (!rq || own.empty()) return;
  for (const auto* ids : {&req.job_ids(), &req.exact_job_ids()}) {
    if (std::none_of(ids->begin(), ids->end(),
                     [&](int64_t id) { return std::to_string(id) == own; }))
      continue;
    ::signal(SIGTERM, SIG_IGN);
    return;
  }
}

int RunScontrolJobAction(Ctx& c, JobAction action, const std::vector<std::string>& args) {
  UpdateJobRequest req;
  req.set_action(action);
  std::vector<JobSelector> sels;
  for (const std::string& a : args) {
    if (action == JOB_ACTION_REQUEUE_HOLD && KeyValue(a).first == "state")
      continue;  // State=SpecialExit
    Expected<std::vector<JobSelector>> v = ParseJobSelectors(a);
    if (!v.ok()) return Error(c, "Invalid job id specified for job " + a);
    sels.insert(sels.end(), v->begin(), v->end());
  }
  if (sels.empty()) return Error(c, "scontrol: error: too few arguments for keyword");
  Expected<ClientApiInterface*> api = Api(c);
  if (api.ok()) {
    std::vector<std::string> missing;
    ResolvedIds ids = ResolveSelectors(sels, *api, &missing);
    for (int64_t id : ids.whole) req.add_job_ids(id);
    for (int64_t id : ids.exact) req.add_exact_job_ids(id);
    if (!missing.empty()) return Error(c, "Invalid job id specified for job " + missing[0]);
  }
  ShieldOwnRequeue(c.env, req);
  Expected<UpdateJobReply> rep =
      api.ok() ? (*api)->UpdateJob(req) : Expected<UpdateJobReply>(api.status());
  if (!rep.ok()) {
    bool rq = action == JOB_ACTION_REQUEUE || action == JOB_ACTION_REQUEUE_HOLD;
    std::string what = rq ? "slurm_requeue error: " : "slurm_update error: ";
    return Error(c, what + rep.status().message());
  }
  return 0;
}

}  // namespace
}  // namespace sluice
