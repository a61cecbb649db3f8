#include "cli/sreport.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <ostream>

#include "cli/format_engine.h"
#include "cli/help_text.h"
#include "cli/opt_parser.h"
#include "cli/sacct.h"
#include "cli/sreport_calc.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

enum Opt { kTime = 1, kTres, kParsable, kParsable2, kNoHeader, kVersion, kHelp, kIgnored };

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"time", 't', ArgKind::kRequired, kTime},
      {"tres", 'T', ArgKind::kRequired, kTres},
      {"parsable", 'p', ArgKind::kNone, kParsable},
      {"parsable2", 'P', ArgKind::kNone, kParsable2},
      {"noheader", 'n', ArgKind::kNone, kNoHeader},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kHelp},
      {"cluster", 'M', ArgKind::kRequired, kIgnored},
      {"all_clusters", 'a', ArgKind::kNone, kIgnored},
      {"quiet", 'Q', ArgKind::kNone, kIgnored},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
  };
  return *d;
}

struct Col {
  std::string name;
  int width;
  bool right;
};

int Fail(CliEnv& env, const std::string& msg) {
  *env.err << "sreport: error: " << msg << "\n";
  return 1;
}

struct Report {
  std::string unit = "minutes";  // minutes, hours, seconds, percent
  std::string tres = "cpu";
  bool tres_given = false;
  int parsable = 0;
  bool header = true;
};

std::string Amount(int64_t secs, int64_t reported, const Report& r) {
  if (r.unit == "percent") {
    double p = reported > 0 ? 100.0 * static_cast<double>(secs) / static_cast<double>(reported) : 0;
    return fmt::format("{:.2f}%", p);
  }
  if (r.unit == "hours") return std::to_string(static_cast<int64_t>(std::llround(secs / 3600.0)));
  if (r.unit == "seconds") return std::to_string(secs);
  return std::to_string(static_cast<int64_t>(std::llround(secs / 60.0)));
}

std::string UnitLine(const Report& r) {
  std::string what = r.tres_given ? "TRES" : "CPU";
  if (r.unit == "percent") return "Usage reported in Percentage of Total";
  if (r.unit == "hours") return "Usage reported in " + what + " Hours";
  if (r.unit == "seconds") return "Usage reported in " + what + " Seconds";
  return "Usage reported in " + what + " Minutes";
}

void Print(CliEnv& env, const Report& r, const std::string& title, const std::vector<Col>& cols,
           const std::vector<std::vector<std::string>>& rows) {
  std::string bar(80, '-');
  if (r.header) {
    *env.out << bar << "\n" << title << "\n" << UnitLine(r) << "\n" << bar << "\n";
  }
  auto line = [&](const std::function<std::string(size_t)>& cell, bool cut) {
    std::string out;
    for (size_t i = 0; i < cols.size(); ++i) {
      std::string v = cell(i);
      if (r.parsable) {
        out += v;
        if (r.parsable == 1 || i + 1 < cols.size()) out += "|";
      } else {
        if (cut && static_cast<int>(v.size()) > cols[i].width) v = v.substr(0, cols[i].width);
        out += Justify(v, cols[i].width, cols[i].right) + " ";
      }
    }
    *env.out << out << "\n";
  };
  if (r.header) {
    line([&](size_t i) { return cols[i].name; }, true);
    if (!r.parsable) line([&](size_t i) { return std::string(cols[i].width, '-'); }, false);
  }
  for (const auto& row : rows) line([&](size_t i) { return row[i]; }, false);
}

}  // namespace

int RunSreport(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sreport", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sreport --help\" for more information\n";
    return 1;
  }
  Report r;
  for (const ParsedOption& o : parsed->options) {
    switch (o.id) {
      case kTime: {
        std::string u = ToLower(o.value);
        if (u == "m" || u == "min" || u == "minutes")
          r.unit = "minutes";
        else if (u == "h" || u == "hour" || u == "hours")
          r.unit = "hours";
        else if (u == "s" || u == "sec" || u == "secs" || u == "seconds")
          r.unit = "seconds";
        else if (u == "p" || u == "percent")
          r.unit = "percent";
        else
          return Fail(env, "unknown time format " + o.value);
        break;
      }
      case kTres: {
        std::string t = ToLower(o.value);
        if (t != "cpu" && t != "gres/gpu" && t != "gres/gpuutil" && t != "node")
          return Fail(env, "Invalid TRES: " + o.value);
        r.tres = t;
        r.tres_given = true;
        break;
      }
      case kParsable:
        r.parsable = 1;
        break;
      case kParsable2:
        r.parsable = 2;
        break;
      case kNoHeader:
        r.header = false;
        break;
      case kVersion:
        *env.out << "slurm " << kSlurmVersion << "\n";
        return 0;
      case kHelp:
        *env.out << HelpText("sreport", HelpKind::kHelp);
        return 0;
    }
  }
  const auto& pos = parsed->positionals;
  if (pos.size() < 2) return Fail(env, "Specify a report: cluster utilization | user top");
  std::string kind = ToLower(pos[0]) + " " + ToLower(pos[1]);
  bool util = kind == "cluster utilization";
  bool top = kind == "user top" || kind == "user topusage";
  if (!util && !top) return Fail(env, "Not valid report: " + pos[0] + " " + pos[1]);
  if (util && r.tres == "gres/gpuutil") {
    return Fail(env, "TRES gres/gpuutil is reported by user topusage only");
  }
  int64_t now = env.clock->Now();
  int64_t end = LocalMidnight(now), start = end - 86400;
  size_t top_count = 10;
  for (size_t i = 2; i < pos.size(); ++i) {
    size_t eq = pos[i].find('=');
    std::string k = ToLower(pos[i].substr(0, eq));
    std::string v = eq == std::string::npos ? "" : pos[i].substr(eq + 1);
    if (eq == std::string::npos || v.empty()) return Fail(env, "Unknown condition: " + pos[i]);
    if (k == "start" || k == "end") {
      auto t = ParseSacctTime(v, now);
      if (!t.ok()) return Fail(env, t.status().message());
      (k == "start" ? start : end) = *t;
    } else if (k == "topcount" && top) {
      char* e = nullptr;
      long n = std::strtol(v.c_str(), &e, 10);
      if (*e != '\0' || n <= 0) return Fail(env, "Invalid TopCount: " + v);
      top_count = static_cast<size_t>(n);
    } else if (k != "cluster" && k != "clusters") {
      return Fail(env, "Unknown condition: " + pos[i]);
    }
  }
  if (end <= start) return Fail(env, "end time is not after start time");

  Expected<ClientApiInterface*> api = env.connect();
  if (!api.ok()) return Fail(env, api.status().message());
  AcctJobsRequest req;
  req.set_start(start);
  req.set_end(end);
  req.set_node_events(util);
  auto reply = (*api)->AcctJobs(req);
  if (!reply.ok()) return Fail(env, reply.status().message());
  std::vector<AcctJob> jobs(reply->jobs().begin(), reply->jobs().end());
  std::string cluster = "sluice";
  if (auto cfg = (*api)->GetConfig({}); cfg.ok()) {
    for (int i = 0; i < cfg->keys_size() && i < cfg->values_size(); ++i) {
      if (EqualsIgnoreCase(cfg->keys(i), "ClusterName")) cluster = cfg->values(i);
    }
  }
  std::string span = fmt::format("{} - {}", FormatTimestamp(start), FormatTimestamp(end - 1));
  std::vector<Col> cols = {{"Cluster", 9, true}};
  if (r.tres_given) cols.push_back({"TRES Name", 14, false});
  std::vector<std::vector<std::string>> rows;
  if (util) {
    auto nodes = (*api)->GetNodes({});
    if (!nodes.ok()) return Fail(env, nodes.status().message());
    int64_t capacity = 0;
    for (const NodeInfo& n : nodes->nodes()) {
      capacity += r.tres == "gres/gpu" ? n.gpus_size() : (r.tres == "node" ? 1 : n.cpus());
    }
    std::vector<NodeEventRecord> events(reply->node_events().begin(), reply->node_events().end());
    Utilization u = ClusterUtilization(jobs, capacity, r.tres, start, end, now, events);
    for (auto c : std::vector<Col>{{"Allocated", 10, true},
                                   {"Down", 8, true},
                                   {"PLND Down", 8, true},
                                   {"Idle", 9, true},
                                   {"Reserved", 8, true},
                                   {"Reported", 9, true}}) {
      cols.push_back(c);
    }
    std::vector<std::string> row = {cluster};
    if (r.tres_given) row.push_back(r.tres);
    for (int64_t v : {u.allocated, u.down, u.planned_down, u.idle, u.reserved, u.reported}) {
      row.push_back(Amount(v, u.reported, r));
    }
    rows.push_back(row);
    Print(env, r, "Cluster Utilization " + span, cols, rows);
    return 0;
  }
  // Percentages of the TRES-seconds used; gres/gpuutil: of the GPU-seconds allocated.
  const std::string of = r.tres == "gres/gpuutil" ? "gres/gpu" : r.tres;
  int64_t total = 0;
  for (const AcctJob& j : jobs)
    total += TresCount(j, of) * Overlap(j.start_time(), j.end_time(), start, end, now);
  for (auto c : std::vector<Col>{{"Login", 9, true},
                                 {"Proper Name", 15, true},
                                 {"Account", 15, true},
                                 {"Used", 8, true},
                                 {"Energy", 8, true}}) {
    cols.push_back(c);
  }
  std::vector<AcctStep> steps(reply->steps().begin(), reply->steps().end());
  for (const UserUsage& u : TopUsers(jobs, r.tres, start, end, now, top_count, steps)) {
    std::vector<std::string> row = {cluster};
    if (r.tres_given) row.push_back(r.tres);
    row.insert(row.end(), {u.user, u.user, u.account, Amount(u.used, total, r), "0"});
    rows.push_back(row);
  }
  Print(env, r, fmt::format("Top {} Users {} ({} secs)", top_count, span, end - start), cols, rows);
  return 0;
}

}  // namespace sluice
