#include "cli/sstat.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>

#include "cli/help_text.h"
#include "cli/opt_parser.h"
#include "common/hostlist.h"
#include "common/text_util.h"

namespace sluice {
namespace {

enum Opt {
  kAllSteps = 1,
  kHelpFormat,
  kPidFormat,
  kJobs,
  kNoHeader,
  kFormat,
  kParsable,
  kParsable2,
  kVerbose,
  kVersion,
  kHelp,
  kUsage,
  kIgnored,
};

const std::vector<OptionDef>& Defs() {
  static const std::vector<OptionDef> defs = {
      {"allsteps", 'a', ArgKind::kNone, kAllSteps},
      {"helpformat", 'e', ArgKind::kNone, kHelpFormat},
      {"pidformat", 'i', ArgKind::kNone, kPidFormat},
      {"jobs", 'j', ArgKind::kRequired, kJobs},
      {"noheader", 'n', ArgKind::kNone, kNoHeader},
      {"format", 'o', ArgKind::kRequired, kFormat},
      {"fields", 0, ArgKind::kRequired, kFormat},
      {"parsable", 'p', ArgKind::kNone, kParsable},
      {"parsable2", 'P', ArgKind::kNone, kParsable2},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"noconvert", 0, ArgKind::kNone, kIgnored},
  };
  return defs;
}

constexpr char kDefaultFormat[] =
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,"
    "MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,"
    "AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,"
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,"
    "AveDiskWrite,TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"
    "TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutMax,"
    "TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutAve,TRESUsageOutTot";

// One measure of the step's tasks: the largest and smallest (with their node and task)
// and the sum.
struct Spread {
  const TaskUsage* max = nullptr;
  const TaskUsage* min = nullptr;
  int64_t total = 0;
  int64_t count = 0;
};

using Measure = int64_t (*)(const TaskUsage&);

Spread Over(const StepUsageReply& u, Measure get) {
  Spread s;
  for (const TaskUsage& t : u.tasks()) {
    if (!s.max || get(t) > get(*s.max)) s.max = &t;
    if (!s.min || get(t) < get(*s.min)) s.min = &t;
    s.total += get(t);
    ++s.count;
  }
  return s;
}

// Bytes as Slurm scales them: "512", "1.50K", "20.00M", ...
std::string Bytes(int64_t b) {
  if (b < 1024) return std::to_string(b);
  double v = static_cast<double>(b);
  int unit = -1;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:.2f}{}", v, "KMGTP"[unit]);
}

struct MeasureDef {
  const char* name;  // as in the field names: MaxRSS, AveVMSize, MinCPUNode, ...
  Measure get;
  std::string (*text)(int64_t);
};

const MeasureDef kMeasures[] = {
    {"VMSize", [](const TaskUsage& t) { return t.vsize_kb(); },
     [](int64_t v) { return KbText(v); }},
    {"RSS", [](const TaskUsage& t) { return t.rss_kb(); }, [](int64_t v) { return KbText(v); }},
    {"Pages", [](const TaskUsage& t) { return t.pages(); },
     [](int64_t v) { return std::to_string(v); }},
    {"CPU", [](const TaskUsage& t) { return t.cpu_ms(); },
     [](int64_t v) { return CpuText(v * 1000); }},
    {"DiskRead", [](const TaskUsage& t) { return t.read_bytes(); }, Bytes},
    {"DiskWrite", [](const TaskUsage& t) { return t.write_bytes(); }, Bytes},
};

const MeasureDef& Find(const char* name) {
  for (const MeasureDef& m : kMeasures) {
    if (std::string_view(m.name) == name) return m;
  }
  return kMeasures[0];
}

// "Max" / "Min" / "Ave" / "Tot" of a measure; with `where` "Node" or "Task" the node or
// task that has the Max or Min. Empty when no task reported.
std::string Statistic(const StepUsageReply& u, const MeasureDef& m, std::string_view kind,
                      std::string_view where, bool raw = false) {
  Spread s = Over(u, m.get);
  if (s.count == 0) return "";
  if (kind == "Max" || kind == "Min") {
    const TaskUsage& t = kind == "Max" ? *s.max : *s.min;
    if (where == "Node") return t.node();
    if (where == "Task") return std::to_string(t.rank());
    return raw ? std::to_string(m.get(t)) : m.text(m.get(t));
  }
  int64_t v = kind == "Tot" ? s.total : s.total / s.count;
  return raw ? std::to_string(v) : m.text(v);
}

// TRESUsageIn<kind> / TRESUsageOut<kind>: Slurm's TRES strings of the statistic.
std::string Tres(const StepUsageReply& u, bool in, std::string_view kind) {
  if (u.tasks_size() == 0) return "";
  std::string_view where;
  if (kind.size() > 3) {
    where = kind.substr(3);
    kind = kind.substr(0, 3);
  }
  auto stat = [&](const char* measure, bool raw) {
    return Statistic(u, Find(measure), kind, where, raw);
  };
  const std::string energy = where == "Node" ? stat("CPU", false) : "0";
  if (!in) return fmt::format("energy={},fs/disk={}", energy, stat("DiskWrite", true));
  return fmt::format("cpu={},energy={},fs/disk={},mem={},pages={},vmem={}", stat("CPU", false),
                     energy, stat("DiskRead", true), stat("RSS", false), stat("Pages", true),
                     stat("VMSize", false));
}

std::vector<std::string> Nodes(const StepUsageReply& u) {
  std::vector<std::string> nodes;
  for (const TaskUsage& t : u.tasks()) {
    if (std::find(nodes.begin(), nodes.end(), t.node()) == nodes.end()) nodes.push_back(t.node());
  }
  return nodes;
}

// The steps named by -j: "12" (step unset: chosen from the running ones), "12.3".
struct StepName {
  int64_t job_id = 0;
  std::optional<int> step_id;
  std::string text;
};

Expected<std::vector<StepName>> ParseJobList(const std::string& list) {
  std::vector<StepName> out;
  for (std::string_view part : Split(list, ',')) {
    if (part.empty()) continue;
    const std::string item(part);
    StepName n;
    n.text = item;
    size_t dot = item.find('.');
    std::string job = item.substr(0, dot);
    char* end = nullptr;
    n.job_id = std::strtoll(job.c_str(), &end, 10);
    if (job.empty() || *end != '\0' || n.job_id <= 0)
      return InvalidArgument("Invalid job id: " + item);
    if (dot != std::string::npos) {
      std::string step = item.substr(dot + 1);
      long id = std::strtol(step.c_str(), &end, 10);
      if (step == "batch" || step == "extern") {
        id = -1;  // no stepd usage for these: reported as not running
      } else if (step.empty() || *end != '\0' || id < 0) {
        return InvalidArgument("Invalid job id: " + item);
      }
      n.step_id = static_cast<int>(id);
    }
    out.push_back(n);
  }
  return out;
}

// The running steps of job `job_id` to report: the given one, the lowest, or all.
Expected<std::vector<int>> StepsToReport(const StepName& n, bool all, ClientApiInterface* api) {
  if (n.step_id) return std::vector<int>{*n.step_id};
  GetStepsRequest req;
  req.add_job_ids(n.job_id);
  ASSIGN_OR_RETURN(GetStepsReply steps, api->GetSteps(req));
  std::vector<int> ids;
  for (const StepInfo& s : steps.steps()) {
    if (s.job_id() == n.job_id) ids.push_back(s.step_id());
  }
  std::sort(ids.begin(), ids.end());
  if (ids.empty()) return NotFound(fmt::format("No steps running for job {}", n.job_id));
  if (!all) ids.resize(1);
  return ids;
}

std::string HelpFormat() {
  std::string out;
  const std::vector<SacctField>& fields = SstatFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i % 4 != 0) out += " ";
    if (i % 4 == 0 && i > 0) out += "\n";
    out += fmt::format("{:<19}", fields[i].name);
  }
  return out + "\n";
}

struct Row {
  std::string job_step;
  StepUsageReply usage;
};

}  // namespace

const std::vector<SacctField>& SstatFields() {
  static const std::vector<SacctField> fields = [] {
    std::vector<SacctField> f;
    for (const char* name : {"AveCPU",
                             "AveCPUFreq",
                             "AveDiskRead",
                             "AveDiskWrite",
                             "AvePages",
                             "AveRSS",
                             "AveVMSize",
                             "ConsumedEnergy",
                             "ConsumedEnergyRaw",
                             "JobID",
                             "MaxDiskRead",
                             "MaxDiskReadNode",
                             "MaxDiskReadTask",
                             "MaxDiskWrite",
                             "MaxDiskWriteNode",
                             "MaxDiskWriteTask",
                             "MaxPages",
                             "MaxPagesNode",
                             "MaxPagesTask",
                             "MaxRSS",
                             "MaxRSSNode",
                             "MaxRSSTask",
                             "MaxVMSize",
                             "MaxVMSizeNode",
                             "MaxVMSizeTask",
                             "MinCPU",
                             "MinCPUNode",
                             "MinCPUTask",
                             "Nodelist",
                             "NTasks",
                             "Pids",
                             "ReqCPUFreq",
                             "ReqCPUFreqMin",
                             "ReqCPUFreqMax",
                             "ReqCPUFreqGov",
                             "TRESUsageInAve",
                             "TRESUsageInMax",
                             "TRESUsageInMaxNode",
                             "TRESUsageInMaxTask",
                             "TRESUsageInMin",
                             "TRESUsageInMinNode",
                             "TRESUsageInMinTask",
                             "TRESUsageInTot",
                             "TRESUsageOutAve",
                             "TRESUsageOutMax",
                             "TRESUsageOutMaxNode",
                             "TRESUsageOutMaxTask",
                             "TRESUsageOutMin",
                             "TRESUsageOutMinNode",
                             "TRESUsageOutMinTask",
                             "TRESUsageOutTot"}) {
      std::string n = name;
      bool text = n == "JobID" || n == "Nodelist" || n == "Pids" || n.rfind("TRES", 0) == 0;
      f.push_back({n, n == "Nodelist" || n == "Pids" ? 20 : text ? 14 : 10, !text});
    }
    return f;
  }();
  return fields;
}

std::string SstatValue(const std::string& f, const std::string& job_step, const StepUsageReply& u) {
  if (f == "JobID") return job_step;
  if (f == "NTasks") return std::to_string(u.ntasks());
  if (f == "Nodelist") return CompressHostlistSorted(Nodes(u));
  if (f == "Pids") {
    std::string pids;
    for (const TaskUsage& t : u.tasks())
      for (int p : t.pids()) pids += (pids.empty() ? "" : ",") + std::to_string(p);
    return pids;
  }
  if (f == "AveCPUFreq" || f == "ConsumedEnergy" || f == "ConsumedEnergyRaw") return "0";
  if (f.rfind("ReqCPUFreq", 0) == 0) return "Unknown";
  if (f.rfind("TRESUsageIn", 0) == 0) return Tres(u, true, std::string_view(f).substr(11));
  if (f.rfind("TRESUsageOut", 0) == 0) return Tres(u, false, std::string_view(f).substr(12));
  std::string_view kind = std::string_view(f).substr(0, 3);
  for (const MeasureDef& m : kMeasures) {
    std::string_view rest = std::string_view(f).substr(3);
    if (rest.rfind(m.name, 0) != 0) continue;
    std::string_view where = rest.substr(std::string_view(m.name).size());
    if (where.empty() || where == "Node" || where == "Task") return Statistic(u, m, kind, where);
  }
  return "";
}

int RunSstat(const std::vector<std::string>& args, CliEnv& env) {
  std::string bad;
  Expected<ParsedArgs> parsed = ParseCommandLine("sstat", args, Defs(), {}, &bad);
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sstat --help\" for more information\n";
    return 1;
  }
  bool all = false, header = true;
  int parsable = 0;
  std::string format = kDefaultFormat, jobs;
  for (const ParsedOption& o : parsed->options) {
    switch (o.id) {
      case kAllSteps:
        all = true;
        break;
      case kHelpFormat:
        *env.out << HelpFormat();
        return 0;
      case kPidFormat:
        format = "JobID,Nodelist,Pids";
        break;
      case kJobs:
        jobs += (jobs.empty() ? "" : ",") + o.value;
        break;
      case kNoHeader:
        header = false;
        break;
      case kFormat:
        format = o.value;
        break;
      case kParsable:
        parsable = 1;
        break;
      case kParsable2:
        parsable = 2;
        break;
      case kVersion:
        *env.out << "slurm " << kSlurmVersion << "\n";
        return 0;
      case kHelp:
        *env.out << HelpText("sstat", HelpKind::kHelp);
        return 0;
      case kUsage:
        *env.out << HelpText("sstat", HelpKind::kUsage);
        return 0;
      default:
        break;
    }
  }
  for (const std::string& p : parsed->positionals) jobs += (jobs.empty() ? "" : ",") + p;
  Expected<std::vector<SacctField>> fields = ParseFieldList(format, SstatFields());
  if (!fields.ok()) {
    *env.err << "sstat: error: " << fields.status().message() << "\n";
    return 1;
  }
  Expected<std::vector<StepName>> names = ParseJobList(jobs);
  if (!names.ok()) {
    *env.err << "sstat: error: " << names.status().message() << "\n";
    return 1;
  }
  if (names->empty()) {
    *env.err << "sstat: error: You didn't give me any jobs to stat.\n";
    return 1;
  }
  Expected<ClientApiInterface*> api = env.connect();
  if (!api.ok()) {
    *env.err << "sstat: error: " << api.status().message() << "\n";
    return 1;
  }
  std::vector<Row> rows;
  int rc = 0;
  auto fail = [&](const std::string& why) {
    *env.err << "sstat: error: " << why << "\n";
    rc = 1;
  };
  for (const StepName& n : *names) {
    Expected<std::vector<int>> steps = StepsToReport(n, all, *api);
    if (!steps.ok()) {
      fail(steps.status().code() == Code::kNotFound
               ? steps.status().message()
               : fmt::format("couldn't get steps for job {}", n.job_id));
      continue;
    }
    for (int step : *steps) {
      std::string job_step = n.step_id && step < 0 ? n.text : fmt::format("{}.{}", n.job_id, step);
      StepUsageRequest req;
      req.set_job_id(n.job_id);
      req.set_step_id(step);
      Expected<StepUsageReply> u =
          step < 0 ? Expected<StepUsageReply>(NotFound("")) : (*api)->StepUsage(req);
      if (!u.ok()) {
        const Code code = u.status().code();
        if (code != Code::kNotFound && code != Code::kFailedPrecondition) {
          fail(u.status().message());
        } else if (!n.step_id) {  // the job or its step ended since GetSteps listed it
          fail(fmt::format("No steps running for job {}", n.job_id));
        } else {
          fail(fmt::format("StepId={} not found running.", job_step));
        }
        continue;
      }
      for (const std::string& e : u->errors()) fail("problem getting usage from " + e);
      rows.push_back({job_step, std::move(*u)});
    }
  }
  *env.out << FormatColumns(
      *fields, rows.size(),
      [&](const SacctField& f, size_t r) {
        return SstatValue(f.name, rows[r].job_step, rows[r].usage);
      },
      parsable, header);
  return rc;
}

}  // namespace sluice
