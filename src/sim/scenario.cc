// Scenario files: see scenario.h.
#include "sim/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "common/clock.h"
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
};

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

Status AddJob(const Args& args, std::string_view name, size_t line, const Declared& declared,
              Scenario* scenario) {
  SimJob job;
  ScenarioJob expected;
  int64_t limit = 0, nodes = 0, cpus = 0, gpus = 0, exclusive = 0;
  job.id = expected.id = args.Text("id");
  if (job.id.empty()) return LineError(name, line, "job needs id=");
  RETURN_IF_ERROR(args.Int("submit", 0, 0, &job.submit_s));
  RETURN_IF_ERROR(args.Int("run", 1, 1, &job.run_s));
  RETURN_IF_ERROR(args.Int("limit", job.run_s, 1, &limit));
  RETURN_IF_ERROR(args.Int("nodes", 1, 1, &nodes));
  RETURN_IF_ERROR(args.Int("cpus", 1, 1, &cpus));
  RETURN_IF_ERROR(args.Int("gpus", 0, 0, &gpus));
  RETURN_IF_ERROR(args.Int("exclusive", 0, 0, &exclusive));
  const std::string start = args.Text("start");
  if (start == "rejected") {
    expected.expect_state = ScenarioJob::State::kRejected;
  } else if (start == "never") {
    expected.expect_state = ScenarioJob::State::kNever;
  } else {
    RETURN_IF_ERROR(args.Int("start", -1, 0, &expected.expect_start));
    if (expected.expect_start < 0) return LineError(name, line, "job needs start=");
  }
  expected.submit_s = job.submit_s;
  job.request.submit_time = job.submit_s;
  job.request.time_limit_s = std::min(limit, INT64_MAX);
  job.request.num_nodes = static_cast<int>(nodes);
  job.request.cpus_per_node = static_cast<int>(cpus);
  job.request.gpus_per_node = static_cast<int>(gpus);
  job.request.exclusive = exclusive != 0;
  job.cpus = nodes * cpus;
  job.gpus = nodes * gpus;
  RETURN_IF_ERROR(AddTraits(args, name, line, declared, &job));
  scenario->workload.jobs.push_back(std::move(job));
  scenario->expected.push_back(std::move(expected));
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
              SimPriority* priority) {
  int64_t value = 0;
  RETURN_IF_ERROR(args.Int("priority", 0, 0, &value));
  if (args.Text("name").empty()) return LineError(name, line, "qos needs name=");
  declared->qos[args.Text("name")] = value;
  priority->max_qos_priority = std::max(priority->max_qos_priority, value);
  return Status::Ok();
}

Status ParseLine(const std::vector<std::string_view>& tokens, std::string_view name, size_t line,
                 Scenario* scenario, Declared* declared) {
  const std::string_view directive = tokens[0];
  if (directive == "policy") {
    for (size_t i = 1; i < tokens.size(); ++i) {
      auto policy = ParsePolicy(tokens[i]);
      if (!policy.ok()) return LineError(name, line, policy.status().message());
      scenario->policies.push_back(*policy);
    }
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
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1,
                                            {"id", "submit", "run", "limit", "nodes", "cpus",
                                             "gpus", "exclusive", "start", "user", "account",
                                             "partition", "qos", "nice"},
                                            name, line));
    return AddJob(args, name, line, *declared, scenario);
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
    ASSIGN_OR_RETURN(Args args, Args::Parse(tokens, 1, {"name", "priority"}, name, line));
    return AddQos(args, name, line, declared, &scenario->priority);
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

// Sorts jobs by submit time (stable), numbers them and fills in the totals.
void FinishScenario(const std::string& kind, Scenario* scenario) {
  Workload& workload = scenario->workload;
  std::vector<size_t> order(workload.jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return workload.jobs[a].submit_s < workload.jobs[b].submit_s;
  });
  std::vector<SimJob> jobs;
  std::vector<ScenarioJob> expected;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    jobs.push_back(std::move(workload.jobs[order[rank]]));
    expected.push_back(std::move(scenario->expected[order[rank]]));
    jobs.back().request.job_id = static_cast<int64_t>(rank) + 1;
    jobs.back().request.priority = static_cast<int64_t>(order.size() - rank);
  }
  workload.jobs = std::move(jobs);
  scenario->expected = std::move(expected);
  for (const sched::Node& node : workload.cluster.nodes) {
    workload.total_cpus += node.cpus;
    workload.total_gpus += static_cast<int64_t>(node.gpus.size());
  }
  const bool gpu = kind.empty() ? workload.total_gpus > 0 : kind == "gpu";
  workload.kind = gpu ? TraceKind::kGpu : TraceKind::kCpu;
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
  if (scenario.policies.empty()) return LineError(name, lines.size(), "no policy line");
  if (scenario.workload.cluster.nodes.empty()) return LineError(name, lines.size(), "no nodes");
  if (scenario.workload.jobs.empty()) return LineError(name, lines.size(), "no jobs");
  FinishScenario(declared.kind, &scenario);
  return scenario;
}

Expected<std::vector<std::string>> RunScenario(const Scenario& scenario, Policy policy) {
  std::unique_ptr<sched::Scheduler> scheduler = MakePolicyScheduler(policy);
  ManualClock clock(kScenarioEpoch);
  const Workload& workload = scenario.workload;
  ASSIGN_OR_RETURN(SimResult result, Simulate(workload.cluster, workload.jobs, scheduler.get(),
                                              &clock, scenario.priority));
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
                                     PolicyName(policy), want.id, got_text, want_text));
    }
  }
  const auto fields = MetricFields(ComputeMetrics(workload, result));
  for (const auto& [key, want] : scenario.expect_metrics) {
    for (const auto& [name, got] : fields) {
      if (name == key && got != want) {
        problems.push_back(fmt::format("{} [{}]: {} = {}, expected {}", scenario.name,
                                       PolicyName(policy), key, got, want));
      }
    }
  }
  return problems;
}

}  // namespace sluice::sim
