// Scenario files: see scenario.h.
#include "sim/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "common/clock.h"
#include "common/text_util.h"
#include "sched/assoc_limits.h"
#include "sim/metrics.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace_util.h"

namespace sluice::sim {

namespace {

using internal::LineError;

// Scenario times are relative; the scheduler sees them after this (arbitrary) epoch.
constexpr int64_t kScenarioEpoch = 1'000'000'000;

// key=value tokens of one directive, checked against the keys it allows.
class Args {
 public:
  static Expected<Args> Parse(const std::vector<std::string_view>& tokens, size_t first,
                              const std::set<std::string, std::less<>>& allowed,
                              std::string_view name, size_t line) {
    Args args(name, line);
    for (size_t i = first; i < tokens.size(); ++i) {
      size_t eq = tokens[i].find('=');
      if (eq == std::string_view::npos || eq == 0) {
        return LineError(name, line, fmt::format("expected key=value, got '{}'", tokens[i]));
      }
      std::string key(tokens[i].substr(0, eq));
      if (!allowed.empty() && !allowed.count(key)) {
        return LineError(name, line, fmt::format("unknown key '{}'", key));
      }
      args.values_[key] = std::string(tokens[i].substr(eq + 1));
    }
    return args;
  }

  bool Has(std::string_view key) const { return values_.count(std::string(key)) > 0; }
  std::string Text(std::string_view key) const {
    auto it = values_.find(std::string(key));
    return it == values_.end() ? std::string() : it->second;
  }
  // An integer >= `min`; `fallback` when absent.
  Status Int(std::string_view key, int64_t fallback, int64_t min, int64_t* out) const {
    *out = fallback;
    if (!Has(key)) return Status::Ok();
    std::string text = Text(key);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    if (ec != std::errc() || ptr != text.data() + text.size() || *out < min) {
      return LineError(name_, line_, fmt::format("{}={} is not an integer >= {}", key, text, min));
    }
    return Status::Ok();
  }
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  Args(std::string_view name, size_t line) : name_(name), line_(line) {}
  std::string_view name_;
  size_t line_;
  std::map<std::string, std::string> values_;
};

// What earlier lines declared, for the lines that name it.
struct Declared {
  std::string kind;                                               // `kind` line
  std::map<std::string, std::pair<int64_t, int64_t>> partitions;  // name -> (tier, job factor)
  std::map<std::string, int64_t> qos;                             // name -> priority
  std::set<std::string> accounts = {"root"};
  std::map<std::string, std::string> default_account;  // user -> its first `assoc user=` account
  std::map<std::string, std::string> parent;           // account -> its parent
  std::map<std::string, int> switches;                 // name -> index
  // `limit` lines by scope key: "u:USER/ACCOUNT", "a:ACCOUNT", "q:QOS" and "qu:QOS" (the
  // per-user limits each user of that QOS gets a scope of).
  std::map<std::string, sched::LimitScope> limits;
  // Parse-time job facts FinishScenario resolves once job ids exist (by job line order).
  struct JobLinks {
    std::string array;  // the array's id (its tasks share it); "" = no array
    std::vector<std::string> after_ok, after_any;
  };
  std::vector<JobLinks> links;  // parallel to scenario->workload.jobs before sorting
};

// The comma-separated names of `text` ("" = none).
std::vector<std::string> Names(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (std::string_view part : Split(text, ',')) out.emplace_back(part);
  return out;
}

Status NodesExist(const std::vector<std::string>& names, const sched::ClusterSnapshot& cluster,
                  std::string_view name, size_t line) {
  for (const std::string& n : names) {
    if (std::none_of(cluster.nodes.begin(), cluster.nodes.end(),
                     [&](const sched::Node& node) { return node.name == n; })) {
      return LineError(name, line, fmt::format("unknown node '{}'", n));
    }
  }
  return Status::Ok();
}

Status AddNodes(const Args& args, sched::ClusterSnapshot* cluster) {
  int64_t count = 0, cpus = 0, gpus = 0, mem = 0;
  RETURN_IF_ERROR(args.Int("count", 1, 1, &count));
  RETURN_IF_ERROR(args.Int("cpus", 1, 1, &cpus));
  RETURN_IF_ERROR(args.Int("gpus", 0, 0, &gpus));
  RETURN_IF_ERROR(args.Int("mem", 0, 0, &mem));
  for (int64_t i = 0; i < count; ++i) {
    sched::Node node;
    node.name = fmt::format("n{}", cluster->nodes.size() + 1);
    node.cpus = static_cast<int>(cpus);
    node.mem_mb = mem;
    for (int g = 0; g < gpus; ++g) node.gpus.push_back(sched::Gpu{g, "", false, {}});
    cluster->nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

// user=, account=, partition=, qos=, nice= of a job line.
Status AddTraits(const Args& args, std::string_view name, size_t line, const Declared& declared,
                 SimJob* job) {
  PriorityTraits& t = job->traits;
  t.user = args.Text("user");
  t.account = args.Text("account");
  if (t.account.empty() && declared.default_account.count(t.user)) {
    t.account = declared.default_account.at(t.user);
  }
  if (!t.account.empty() && !declared.accounts.count(t.account)) {
    return LineError(name, line, fmt::format("unknown account '{}'", t.account));
  }
  if (args.Has("partition")) {
    auto p = declared.partitions.find(args.Text("partition"));
    if (p == declared.partitions.end()) {
      return LineError(name, line, fmt::format("unknown partition '{}'", args.Text("partition")));
    }
    job->request.priority_tier = static_cast<int>(p->second.first);
    t.partition_job_factor = p->second.second;
  }
  if (args.Has("qos")) {
    auto q = declared.qos.find(args.Text("qos"));
    if (q == declared.qos.end()) {
      return LineError(name, line, fmt::format("unknown qos '{}'", args.Text("qos")));
    }
    job->request.qos = q->first;
    t.qos_priority = q->second;
  }
  return args.Int("nice", 0, -1'000'000, &t.nice);
}

// The value of `key` for each of `count` jobs (an array's tasks): one value for all, or
// `count` comma-separated values.
Expected<std::vector<std::string>> PerTask(const Args& args, std::string_view key, size_t count,
                                           std::string_view name, size_t line) {
  std::vector<std::string> values = Names(args.Text(key));
  if (values.size() == 1) values = std::vector<std::string>(count, values[0]);
  if (!values.empty() && values.size() != count) {
    return LineError(name, line,
                     fmt::format("{}= has {} values for {} tasks", key, values.size(), count));
  }
  return values;
}

// start= of a job line: "rejected", "never" or a time, for each of `count` jobs; reason=
// (optional): the expected last pending reason, "-" = not checked.
Status ParseExpected(const Args& args, size_t count, std::string_view name, size_t line,
                     std::vector<ScenarioJob>* out) {
  ASSIGN_OR_RETURN(std::vector<std::string> starts, PerTask(args, "start", count, name, line));
  ASSIGN_OR_RETURN(std::vector<std::string> reasons, PerTask(args, "reason", count, name, line));
  if (starts.empty()) return LineError(name, line, "job needs start=");
  out->resize(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string& v = starts[i];
    ScenarioJob& e = (*out)[i];
    if (!reasons.empty() && reasons[i] != "-") e.expect_reason = reasons[i];
    if (v == "rejected") {
      e.expect_state = ScenarioJob::State::kRejected;
    } else if (v == "never") {
      e.expect_state = ScenarioJob::State::kNever;
    } else if (!ParseNonNegative(v, &e.expect_start)) {
      return LineError(name, line, fmt::format("start={} is not a time", v));
    }
  }
  return Status::Ok();
}

Status AddJob(const Args& args, std::string_view name, size_t line, Declared* declared,
              Scenario* scenario) {
  SimJob job;
  int64_t limit = 0, nodes = 0, cpus = 0, gpus = 0, exclusive = 0, array = 0, throttle = 0;
  int64_t switches = 0, switches_wait = 0, preempted = 0;
  const std::string id = args.Text("id");
  if (id.empty()) return LineError(name, line, "job needs id=");
  RETURN_IF_ERROR(args.Int("submit", 0, 0, &job.submit_s));
  RETURN_IF_ERROR(args.Int("run", 1, 1, &job.run_s));
  RETURN_IF_ERROR(args.Int("limit", job.run_s, 1, &limit));
  RETURN_IF_ERROR(args.Int("nodes", 1, 1, &nodes));
  RETURN_IF_ERROR(args.Int("cpus", 1, 1, &cpus));
  RETURN_IF_ERROR(args.Int("gpus", 0, 0, &gpus));
  RETURN_IF_ERROR(args.Int("exclusive", 0, 0, &exclusive));
  RETURN_IF_ERROR(args.Int("array", 0, 1, &array));
  RETURN_IF_ERROR(args.Int("throttle", 0, 0, &throttle));
  RETURN_IF_ERROR(args.Int("switches", 0, 0, &switches));
  RETURN_IF_ERROR(args.Int("switches_wait", 0, 0, &switches_wait));
  RETURN_IF_ERROR(args.Int("preempted", 0, 0, &preempted));
  if (throttle > 0 && array == 0) return LineError(name, line, "throttle= needs array=");
  const size_t count = array > 0 ? static_cast<size_t>(array) : 1;
  std::vector<ScenarioJob> expected;
  RETURN_IF_ERROR(ParseExpected(args, count, name, line, &expected));
  job.request.submit_time = job.submit_s;
  job.request.time_limit_s = limit;
  job.request.num_nodes = static_cast<int>(nodes);
  job.request.cpus_per_node = static_cast<int>(cpus);
  job.request.gpus_per_node = static_cast<int>(gpus);
  job.request.exclusive = exclusive != 0;
  job.request.max_switches = static_cast<int>(switches);
  job.request.switches_wait_s = switches_wait;
  job.request.reservation = args.Text("reservation");
  if (!job.request.reservation.empty() &&
      std::none_of(scenario->workload.cluster.reservations.begin(),
                   scenario->workload.cluster.reservations.end(),
                   [&](const auto& r) { return r.name == job.request.reservation; })) {
    return LineError(name, line, fmt::format("unknown reservation '{}'", job.request.reservation));
  }
  job.array_throttle = throttle;
  job.cpus = nodes * cpus;
  job.gpus = nodes * gpus;
  RETURN_IF_ERROR(AddTraits(args, name, line, *declared, &job));
  Declared::JobLinks links{array > 0 ? id : "", Names(args.Text("afterok")),
                           Names(args.Text("afterany"))};
  for (size_t i = 0; i < count; ++i) {
    job.id = array > 0 ? fmt::format("{}_{}", id, i) : id;
    expected[i].id = job.id;
    expected[i].submit_s = job.submit_s;
    expected[i].expect_preempted = preempted;
    scenario->workload.jobs.push_back(job);
    scenario->expected.push_back(expected[i]);
    declared->links.push_back(links);
  }
  return Status::Ok();
}

Status SetPriority(const Args& args, SimPriority* priority) {
  sched::PriorityWeights& w = priority->weights;
  int64_t favor_small = 0;
  priority->enabled = true;
  RETURN_IF_ERROR(args.Int("weight_age", 0, 0, &w.age));
  RETURN_IF_ERROR(args.Int("weight_fairshare", 0, 0, &w.fairshare));
  RETURN_IF_ERROR(args.Int("weight_job_size", 0, 0, &w.job_size));
  RETURN_IF_ERROR(args.Int("weight_partition", 0, 0, &w.partition));
  RETURN_IF_ERROR(args.Int("weight_qos", 0, 0, &w.qos));
  RETURN_IF_ERROR(args.Int("max_age", w.max_age_s, 0, &w.max_age_s));
  RETURN_IF_ERROR(args.Int("favor_small", 0, 0, &favor_small));
  w.favor_small = favor_small != 0;
  return args.Int("decay_half_life", 0, 0, &priority->decay_half_life_s);
}

Status AddAssoc(const Args& args, std::string_view name, size_t line, Declared* declared,
                SimPriority* priority) {
  sched::Assoc a;
  a.account = args.Text("account");
  a.user = args.Text("user");
  RETURN_IF_ERROR(args.Int("shares", 1, 0, &a.shares));
  if (a.account.empty()) return LineError(name, line, "assoc needs account=");
  if (a.user.empty()) {
    a.parent = args.Has("parent") ? args.Text("parent") : "root";
    if (!declared->accounts.count(a.parent)) {
      return LineError(name, line, fmt::format("unknown account '{}'", a.parent));
    }
    if (!declared->accounts.insert(a.account).second) {
      return LineError(name, line, fmt::format("account '{}' declared twice", a.account));
    }
    declared->parent[a.account] = a.parent;
  } else if (!declared->accounts.count(a.account)) {
    return LineError(name, line, fmt::format("unknown account '{}'", a.account));
  } else {
    declared->default_account.emplace(a.user, a.account);
  }
  priority->assocs.push_back(std::move(a));
  return Status::Ok();
}

Status AddPartition(const Args& args, std::string_view name, size_t line, Declared* declared,
                    SimPriority* priority) {
  int64_t tier = 0, factor = 0;
  RETURN_IF_ERROR(args.Int("tier", 0, 0, &tier));
  RETURN_IF_ERROR(args.Int("job_factor", 0, 0, &factor));
  if (args.Text("name").empty()) return LineError(name, line, "partition needs name=");
  declared->partitions[args.Text("name")] = {tier, factor};
  priority->max_partition_job_factor = std::max(priority->max_partition_job_factor, factor);
  return Status::Ok();
}

Status AddQos(const Args& args, std::string_view name, size_t line, Declared* declared,
              Scenario* scenario) {
  int64_t value = 0;
  RETURN_IF_ERROR(args.Int("priority", 0, 0, &value));
  const std::string qos = args.Text("name");
  if (qos.empty()) return LineError(name, line, "qos needs name=");
  declared->qos[qos] = value;
  scenario->priority.max_qos_priority = std::max(scenario->priority.max_qos_priority, value);
  if (!args.Has("preempts") && !args.Has("preempt_mode")) return Status::Ok();
  sched::PreemptRule& rule = scenario->workload.cluster.preempt.rules[qos];
  for (const std::string& victim : Names(args.Text("preempts"))) {
    if (!declared->qos.count(victim)) {
      return LineError(name, line, fmt::format("unknown qos '{}'", victim));
    }
    rule.preempts.insert(victim);
  }
  if (args.Has("preempt_mode")) {
    auto mode = ParsePreemptMode(args.Text("preempt_mode"), false);
    if (!mode.ok()) return LineError(name, line, mode.status().message());
    rule.mode = *mode;
  }
  return Status::Ok();
}

Status AddSwitch(const Args& args, std::string_view name, size_t line, Declared* declared,
                 sched::ClusterSnapshot* cluster) {
  sched::Switch sw;
  sw.name = args.Text("name");
  if (sw.name.empty()) return LineError(name, line, "switch needs name=");
  if (declared->switches.count(sw.name)) {
    return LineError(name, line, fmt::format("switch '{}' declared twice", sw.name));
  }
  if (args.Has("parent")) {
    auto p = declared->switches.find(args.Text("parent"));
    if (p == declared->switches.end()) {
      return LineError(name, line, fmt::format("unknown switch '{}'", args.Text("parent")));
    }
    sw.parent = p->second;
  }
  const int index = static_cast<int>(cluster->switches.size());
  const std::vector<std::string> nodes = Names(args.Text("nodes"));
  RETURN_IF_ERROR(NodesExist(nodes, *cluster, name, line));
  for (sched::Node& node : cluster->nodes) {
    if (std::find(nodes.begin(), nodes.end(), node.name) != nodes.end()) node.leaf_switch = index;
  }
  declared->switches[sw.name] = index;
  cluster->switches.push_back(std::move(sw));
  return Status::Ok();
}

Status AddReservation(const Args& args, std::string_view name, size_t line,
                      sched::ClusterSnapshot* cluster) {
  sched::ReservationWindow r;
  int64_t maint = 0;
  r.name = args.Text("name");
  if (r.name.empty()) return LineError(name, line, "reservation needs name=");
  RETURN_IF_ERROR(args.Int("start", 0, 0, &r.start));
  RETURN_IF_ERROR(args.Int("end", r.start + 1, r.start + 1, &r.end));
  RETURN_IF_ERROR(args.Int("maint", 0, 0, &maint));
  r.maint = maint != 0;
  r.nodes = Names(args.Text("nodes"));
  if (r.nodes.empty()) return LineError(name, line, "reservation needs nodes=");
  RETURN_IF_ERROR(NodesExist(r.nodes, *cluster, name, line));
  cluster->reservations.push_back(std::move(r));
  return Status::Ok();
}

Status TresArg(const Args& args, std::string_view key, std::string_view name, size_t line,
               sched::TresLimit* out) {
  if (!args.Has(key)) return Status::Ok();
  auto t = sched::ParseTresLimit(args.Text(key));
  if (!t.ok()) return LineError(name, line, t.status().message());
  *out = *t;
  return Status::Ok();
}

// A `limit` line: the scope it names and the limits it sets there. Each kind of scope
// takes the keys its sacctmgr entity has.
Status AddLimit(const Args& args, std::string_view name, size_t line, Declared* declared) {
  const std::string user = args.Text("user"), account = args.Text("account"),
                    qos = args.Text("qos");
  std::set<std::string> keys = {"grp_jobs", "grp_tres"};
  std::string key;
  if (!user.empty() && qos.empty()) {
    std::string acct = account;
    if (acct.empty()) {
      auto d = declared->default_account.find(user);
      acct = d == declared->default_account.end() ? "root" : d->second;
    }
    key = "u:" + user + "/" + acct;
    keys.insert({"max_jobs", "max_wall", "max_tres_per_job"});
  } else if (!account.empty() && qos.empty()) {
    key = "a:" + account;
  } else if (!qos.empty() && user.empty() && account.empty()) {
    if (!declared->qos.count(qos))
      return LineError(name, line, fmt::format("unknown qos '{}'", qos));
    key = "q:" + qos;
    keys.insert({"max_wall", "max_tres_per_job", "max_jobs_per_user", "max_tres_per_user"});
  } else {
    return LineError(name, line, "limit needs user= (and account=), account= or qos=");
  }
  if (!account.empty() && !declared->accounts.count(account)) {
    return LineError(name, line, fmt::format("unknown account '{}'", account));
  }
  for (const auto& [k, v] : args.values()) {
    if (k != "user" && k != "account" && k != "qos" && !keys.count(k)) {
      return LineError(name, line, fmt::format("{} is not a limit of this scope", k));
    }
  }
  sched::LimitScope& scope = declared->limits[key];
  int64_t wall = -1;
  RETURN_IF_ERROR(args.Int("max_jobs", -1, 0, &scope.max_jobs));
  RETURN_IF_ERROR(args.Int("grp_jobs", -1, 0, &scope.grp_jobs));
  RETURN_IF_ERROR(args.Int("max_wall", -1, 0, &wall));
  scope.max_wall_s = wall;
  RETURN_IF_ERROR(TresArg(args, "grp_tres", name, line, &scope.grp_tres));
  RETURN_IF_ERROR(TresArg(args, "max_tres_per_job", name, line, &scope.max_tres_per_job));
  if (!qos.empty()) {
    scope.qos = true;
    sched::LimitScope& per_user = declared->limits["qu:" + qos];
    per_user.qos = true;
    RETURN_IF_ERROR(args.Int("max_jobs_per_user", -1, 0, &per_user.max_jobs));
    RETURN_IF_ERROR(TresArg(args, "max_tres_per_user", name, line, &per_user.max_tres_per_user));
  }
  return Status::Ok();
}

Status SetPreempt(const Args& args, std::string_view name, size_t line, Scenario* scenario) {
  sched::PreemptSettings& p = scenario->workload.cluster.preempt;
  auto type = ParsePreemptType("preempt/" + args.Text("type"));
  if (!type.ok()) return LineError(name, line, type.status().message());
  p.type = *type;
  RETURN_IF_ERROR(args.Int("exempt", -1, 0, &p.exempt_s));
  if (args.Has("mode")) {
    auto mode = ParsePreemptMode(args.Text("mode"), false);
    if (!mode.ok()) return LineError(name, line, mode.status().message());
    scenario->preempt_mode = *mode;
  }
  return Status::Ok();
}

Status ParseLine(const std::vector<std::string_view>& tokens, std::string_view name, size_t line,
                 Scenario* scenario, Declared* declared) {
  const std::string_view directive = tokens[0];
  if (directive == "policy") {
    for (size_t i = 1; i < tokens.size(); ++i) {
      if (auto policy = ParsePolicy(tokens[i]); policy.ok()) {
        scenario->policies.push_back(*policy);
        continue;
      }
      auto spec = ParsePolicySpec(tokens[i]);
      if (!spec.ok()) return LineError(name, line, spec.status().message());
      scenario->specs.push_back(*spec);
    }
    return Status::Ok();
  }
  if (directive == "backfill" && tokens.size() == 2 &&
      tokens[1].substr(0, 18) == "starvation_factor=") {
    auto factor = internal::ParseNumber(tokens[1].substr(18));
    if (!factor || *factor < 0) return LineError(name, line, "bad starvation_factor");
    scenario->starvation_factor = *factor;
    return Status::Ok();
  }
  if (directive == "kind" && tokens.size() == 2 && (tokens[1] == "cpu" || tokens[1] == "gpu")) {
    declared->kind = std::string(tokens[1]);
    return Status::Ok();
  }
  if (directive == "nodes") {
    ASSIGN_OR_RETURN(Args args,
                     Args::Parse(tokens, 1, {"count", "cpus", "gpus", "mem"}, name, line));
    return AddNodes(args, &scenario->workload.cluster);
  }
  if (directive == "job") {
    ASSIGN_OR_RETURN(
        Args args,
        Args::Parse(tokens, 1,
                    {"id",     "submit",    "run",         "limit",    "nodes",         "cpus",
                     "gpus",   "exclusive", "start",       "user",     "account",       "partition",
                     "qos",    "nice",      "reservation", "switches", "switches_wait", "preempted",
                     "reason", "afterok",   "afterany",    "array",    "throttle"},
                    name, line));
    return AddJob(args, name, line, declared, scenario);
  }
  if (directive == "switch") {
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, {"name", "parent", "nodes"}, name, line));
    return AddSwitch(args, name, line, declared, &scenario->workload.cluster);
  }
  if (directive == "reservation") {
    ASSIGN_OR_RETURN(
        Args args, Args::Parse(tokens, 1, {"name", "start", "end", "nodes", "maint"}, name, line));
    return AddReservation(args, name, line, &scenario->workload.cluster);
  }
  if (directive == "limit") {
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, {}, name, line));
    return AddLimit(args, name, line, declared);
  }
  if (directive == "preempt") {
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, {"type", "mode", "exempt"}, name, line));
    return SetPreempt(args, name, line, scenario);
  }
  if (directive == "priority") {
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1,
                                            {"weight_age", "weight_fairshare", "weight_job_size",
                                             "weight_partition", "weight_qos", "max_age",
                                             "favor_small", "decay_half_life"},
                                            name, line));
    return SetPriority(args, &scenario->priority);
  }
  if (directive == "assoc") {
    ASSIGN_OR_RETURN(Args args,
                     Args::Parse(tokens, 1, {"account", "user", "parent", "shares"}, name, line));
    return AddAssoc(args, name, line, declared, &scenario->priority);
  }
  if (directive == "partition") {
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, {"name", "tier", "job_factor"}, name, line));
    return AddPartition(args, name, line, declared, &scenario->priority);
  }
  if (directive == "qos") {
    ASSIGN_OR_RETURN(
        Args args,
        Args::Parse(tokens, 1, {"name", "priority", "preempts", "preempt_mode"}, name, line));
    return AddQos(args, name, line, declared, scenario);
  }
  if (directive == "expect") {
    std::set<std::string, std::less<>> keys;
    for (const auto& field : MetricFields(Metrics{})) keys.insert(field.first);
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, keys, name, line));
    for (const auto& kv : args.values()) scenario->expect_metrics.push_back(kv);
    return Status::Ok();
  }
  return LineError(name, line, fmt::format("unknown directive '{}'", directive));
}

// The limit scopes `job` counts against, as the controller builds them: its user
// association, each account from its own up to root, its QOS and (QOS, user).
std::vector<int> LimitScopesOf(const SimJob& job, const Declared& declared,
                               sched::LimitScopeIndex* index) {
  std::vector<int> out;
  auto scope = [&](const std::string& key, const std::string& declared_as) {
    const int i = index->Get(key, [&] {
      auto it = declared.limits.find(declared_as);
      return it == declared.limits.end() ? sched::LimitScope{} : it->second;
    });
    if (i >= 0) out.push_back(i);
  };
  const std::string user = job.traits.user;
  std::string account = job.traits.account.empty() ? "root" : job.traits.account;
  scope("u:" + user + "/" + account, "u:" + user + "/" + account);
  for (std::string a = account;;) {
    scope("a:" + a, "a:" + a);
    auto p = declared.parent.find(a);
    if (p == declared.parent.end()) break;
    a = p->second;
  }
  const std::string& qos = job.request.qos;
  if (!qos.empty()) {
    scope("q:" + qos, "q:" + qos);
    scope("qu:" + qos + "/" + user, "qu:" + qos);
  }
  return out;
}

// Sorts jobs by submit time (stable), numbers them, resolves arrays, dependencies and
// limit scopes, and fills in the totals.
Status FinishScenario(const Declared& declared, std::string_view name, Scenario* scenario) {
  Workload& workload = scenario->workload;
  std::vector<size_t> order(workload.jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return workload.jobs[a].submit_s < workload.jobs[b].submit_s;
  });
  std::vector<SimJob> jobs;
  std::vector<ScenarioJob> expected;
  std::vector<const Declared::JobLinks*> links;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    jobs.push_back(std::move(workload.jobs[order[rank]]));
    expected.push_back(std::move(scenario->expected[order[rank]]));
    links.push_back(&declared.links[order[rank]]);
    jobs.back().request.job_id = static_cast<int64_t>(rank) + 1;
    jobs.back().request.priority = static_cast<int64_t>(order.size() - rank);
    jobs.back().request.priority_age = jobs.back().request.priority;  // FCFS
  }
  // Job (or array) id -> job indexes; an array's first task gives the array its job id.
  std::map<std::string, std::vector<size_t>> by_id;
  for (size_t i = 0; i < jobs.size(); ++i) {
    by_id[jobs[i].id].push_back(i);
    if (!links[i]->array.empty()) {
      std::vector<size_t>& tasks = by_id[links[i]->array];
      jobs[i].array_job_id = tasks.empty() ? jobs[i].request.job_id : jobs[tasks[0]].array_job_id;
      tasks.push_back(i);
    }
  }
  auto resolve = [&](const std::vector<std::string>& ids, std::vector<size_t>* out) -> Status {
    for (const std::string& id : ids) {
      auto it = by_id.find(id);
      if (it == by_id.end()) {
        return InvalidArgument(fmt::format("{}: dependency on unknown job '{}'", name, id));
      }
      out->insert(out->end(), it->second.begin(), it->second.end());
    }
    return Status::Ok();
  };
  sched::LimitScopeIndex scopes(&workload.cluster.limits);
  for (size_t i = 0; i < jobs.size(); ++i) {
    RETURN_IF_ERROR(resolve(links[i]->after_ok, &jobs[i].after_ok));
    RETURN_IF_ERROR(resolve(links[i]->after_any, &jobs[i].after_any));
    if (declared.limits.empty()) continue;
    std::vector<int> s = LimitScopesOf(jobs[i], declared, &scopes);
    if (!s.empty()) workload.cluster.limits.job_scopes[jobs[i].request.job_id] = std::move(s);
  }
  workload.jobs = std::move(jobs);
  scenario->expected = std::move(expected);
  for (const sched::Node& node : workload.cluster.nodes) {
    workload.total_cpus += node.cpus;
    workload.total_gpus += static_cast<int64_t>(node.gpus.size());
  }
  const bool gpu = declared.kind.empty() ? workload.total_gpus > 0 : declared.kind == "gpu";
  workload.kind = gpu ? TraceKind::kGpu : TraceKind::kCpu;
  return Status::Ok();
}

}  // namespace

Expected<Scenario> ParseScenario(std::string_view text, std::string_view name) {
  Scenario scenario;
  scenario.name = std::string(name);
  Declared declared;
  std::vector<std::string_view> lines = internal::SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i].substr(0, lines[i].find('#'));
    std::vector<std::string_view> tokens = internal::SplitWhitespace(line);
    if (tokens.empty()) continue;
    RETURN_IF_ERROR(ParseLine(tokens, name, i + 1, &scenario, &declared));
  }
  if (scenario.policies.empty() && scenario.specs.empty())
    return LineError(name, lines.size(), "no policy line");
  if (scenario.workload.cluster.nodes.empty()) return LineError(name, lines.size(), "no nodes");
  if (scenario.workload.jobs.empty()) return LineError(name, lines.size(), "no jobs");
  RETURN_IF_ERROR(FinishScenario(declared, name, &scenario));
  return scenario;
}

Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, Policy policy) {
  return RunScenario(scenario, SpecOf(policy));
}

Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, const PolicySpec& spec) {
  sched::SchedulerConfig knobs;
  knobs.bf_order.starvation_factor = scenario.starvation_factor;
  knobs.bf_order.origin = kScenarioEpoch;
  std::unique_ptr<sched::Scheduler> scheduler = MakeSpecScheduler(spec, knobs);
  ManualClock clock(kScenarioEpoch);
  const Workload& workload = scenario.workload;
  ASSIGN_OR_RETURN(SimResult result,
                   Simulate(workload.cluster, workload.jobs, scheduler.get(), &clock,
                            scenario.priority, scenario.preempt_mode, spec.prediction));
  const char* policy_name = spec.name.c_str();
  std::vector<std::string> problems;
  for (size_t i = 0; i < scenario.expected.size(); ++i) {
    const ScenarioJob& want = scenario.expected[i];
    const JobOutcome& got = result.jobs[i];
    const std::string got_text = got.rejected      ? "rejected"
                                 : got.start_s < 0 ? "never"
                                                   : std::to_string(got.start_s);
    const std::string want_text = want.expect_state == ScenarioJob::State::kRejected ? "rejected"
                                  : want.expect_state == ScenarioJob::State::kNever
                                      ? "never"
                                      : std::to_string(want.expect_start);
    if (got_text != want_text) {
      problems.push_back(fmt::format("{} [{}]: job {} started {}, expected {}", scenario.name,
                                     policy_name, want.id, got_text, want_text));
    }
    if (got.preempted != want.expect_preempted) {
      problems.push_back(fmt::format("{} [{}]: job {} was preempted {} times, expected {}",
                                     scenario.name, policy_name, want.id, got.preempted,
                                     want.expect_preempted));
    }
    if (!want.expect_reason.empty() && got.reason != want.expect_reason) {
      problems.push_back(fmt::format("{} [{}]: job {} last waited for '{}', expected '{}'",
                                     scenario.name, policy_name, want.id, got.reason,
                                     want.expect_reason));
    }
  }
  const auto fields = MetricFields(ComputeMetrics(workload, result));
  for (const auto& [key, want] : scenario.expect_metrics) {
    for (const auto& [name, got] : fields) {
      if (name == key && got != want) {
        problems.push_back(fmt::format("{} [{}]: {} = {}, expected {}", scenario.name, policy_name,
                                       key, got, want));
      }
    }
  }
  return problems;
}

}  // namespace sluice::sim
