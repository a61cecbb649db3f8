#include "cli/sacct_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "acct/acct_record.h"
#include "cli/format_engine.h"
#include "cli/query_json.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

// Slurm 22.05 sacct defaults.
const std::vector<SacctField> kFields = {
    {"JobID", 12, false},
    {"JobIDRaw", 12, false},
    {"JobName", 10, true},
    {"User", 9, true},
    {"UID", 6, true},
    {"Group", 9, true},
    {"GID", 6, true},
    {"Account", 10, true},
    {"Partition", 10, true},
    {"QOS", 10, true},
    {"State", 10, true},
    {"ExitCode", 8, true},
    {"DerivedExitCode", 15, true},
    {"Elapsed", 10, true},
    {"ElapsedRaw", 10, true},
    {"Start", 19, true},
    {"End", 19, true},
    {"Submit", 19, true},
    {"Eligible", 19, true},
    {"Timelimit", 10, true},
    {"NodeList", 15, false},
    {"NNodes", 8, true},
    {"NTasks", 8, true},
    {"AllocCPUS", 10, true},
    {"ReqCPUS", 8, true},
    {"AllocTRES", 10, true},
    {"ReqTRES", 10, true},
    {"ReqMem", 10, true},
    {"MaxRSS", 10, true},
    {"TotalCPU", 10, true},
    {"TRESUsageInAve", 10, true},
    {"TRESUsageInMax", 10, true},
    {"CPUTime", 10, true},
    {"WorkDir", 30, false},
    {"Restarts", 8, true},
    {"AllocNodes", 10, true},
    {"ReqNodes", 8, true},
    {"Cluster", 10, true},
};

// A TRES string ("cpu=2,mem=2000M,node=1,gres/gpu:h100=2") as Slurm's JSON list of
// {type, name, id, count}; sizes in MB; ids as Slurm's fixed ones (gres: 1001 onwards).
nlohmann::json TresJson(const std::string& tres) {
  static const std::map<std::string, int> kIds = {
      {"cpu", 1},     {"mem", 2},         {"energy", 3},         {"node", 4},
      {"billing", 5}, {"gres/gpu", 1001}, {"gres/gpumem", 1002}, {"gres/gpuutil", 1003}};
  nlohmann::json out = nlohmann::json::array();
  for (std::string_view item : Split(tres, ',')) {
    size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) continue;
    std::string key(item.substr(0, eq));
    std::string value(item.substr(eq + 1));
    int64_t count = 0;
    if (!ParseNonNegative(value, &count)) {  // a size: "2000M"
      auto mb = ParseMemoryMb(value);
      count = mb.ok() ? *mb : 0;
    }
    std::string base = key.substr(0, key.find(':'));
    auto it = kIds.find(base);
    nlohmann::json name = nullptr;
    std::string type = key;
    if (key.rfind("gres/", 0) == 0) {
      type = "gres";
      name = key.substr(5);
    }
    out.push_back({{"type", type},
                   {"name", name},
                   {"id", it == kIds.end() ? 1000 : it->second},
                   {"count", count}});
  }
  return out;
}

std::string StepIdText(int id) {
  if (id == acct::kBatchStep) return "batch";
  if (id == acct::kExternStep) return "extern";
  return std::to_string(id);
}

std::string JobIdText(const AcctJob& j, bool raw) {
  if (!raw && j.array_job_id() > 0)
    return fmt::format("{}_{}", j.array_job_id(), j.array_task_id());
  return std::to_string(j.job_id());
}

bool Cancelledish(int state) {
  return state == JOB_CANCELLED || state == JOB_TIMEOUT || state == acct::kStateRequeued ||
         state == JOB_NODE_FAIL;
}

std::string ExitText(const SacctRow& r) {
  if (r.step) return fmt::format("{}:{}", r.step->exit_code(), r.step->term_signal());
  if (Cancelledish(r.job->state())) return "0:0";
  return fmt::format("{}:{}", r.job->exit_code(), r.job->term_signal());
}

int64_t Start(const SacctRow& r) { return r.step ? r.step->start_time() : r.job->start_time(); }
int64_t End(const SacctRow& r) { return r.step ? r.step->end_time() : r.job->end_time(); }

int64_t ElapsedS(const SacctRow& r, int64_t now) {
  int64_t s = Start(r);
  if (s <= 0) return 0;
  int64_t e = End(r) > 0 ? End(r) : now;
  return std::max<int64_t>(0, e - s);
}

std::string Cut(const std::string& v, int width, bool right) {
  if (static_cast<int>(v.size()) > width) return v.substr(0, std::max(0, width - 1)) + "+";
  return Justify(v, width, right);
}

}  // namespace

std::string KbText(int64_t kb) {
  if (kb < 0) return "";
  return fmt::format("{}K", kb);
}

std::string CpuText(int64_t us) {
  if (us < 0) return "";
  int64_t ms = us / 1000;
  int64_t s = ms / 1000, frac = ms % 1000;
  int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
  if (d > 0) return fmt::format("{}-{:02}:{:02}:{:02}", d, h, m, sec);
  if (h > 0) return fmt::format("{:02}:{:02}:{:02}", h, m, sec);
  return fmt::format("{:02}:{:02}.{:03}", m, sec, frac);
}

std::string SacctStateName(int state, bool job_row, uint32_t uid) {
  switch (state) {
    case JOB_PENDING:
      return "PENDING";
    case JOB_RUNNING:
      return "RUNNING";
    case JOB_COMPLETING:
      return "COMPLETING";
    case JOB_COMPLETED:
      return "COMPLETED";
    case JOB_FAILED:
      return "FAILED";
    case JOB_CANCELLED:
      return job_row ? fmt::format("CANCELLED by {}", uid) : "CANCELLED";
    case JOB_TIMEOUT:
      return "TIMEOUT";
    case JOB_NODE_FAIL:
      return "NODE_FAIL";
    case JOB_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case acct::kStateRequeued:
      return "REQUEUED";
    default:
      return "UNKNOWN";
  }
}

std::vector<SacctField> DefaultSacctFields() {
  return *ParseSacctFormat("JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode");
}

Expected<std::vector<SacctField>> ParseSacctFormat(const std::string& spec) {
  return ParseFieldList(spec, kFields);
}

Expected<std::vector<SacctField>> ParseFieldList(const std::string& spec,
                                                 const std::vector<SacctField>& known) {
  std::vector<SacctField> out;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item =
        spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    if (item.empty()) continue;
    std::string name = item;
    int width = -1;
    if (size_t pct = item.find('%'); pct != std::string::npos) {
      name = item.substr(0, pct);
      std::string w = item.substr(pct + 1);
      char* end = nullptr;
      long v = std::strtol(w.c_str(), &end, 10);
      if (w.empty() || *end != '\0' || v <= 0) {
        return InvalidArgument(fmt::format("Invalid field requested: \"{}\"", item));
      }
      if (v > kMaxFieldWidth) {  // each row would pad the cell to it
        return InvalidArgument(
            fmt::format("Invalid field requested: \"{}\" (width over {})", item, kMaxFieldWidth));
      }
      width = static_cast<int>(v);
    }
    const SacctField* def = nullptr;
    for (const auto& f : known) {
      if (ToLower(f.name) == ToLower(name)) def = &f;
    }
    if (!def) return InvalidArgument(fmt::format("Invalid field requested: \"{}\"", name));
    out.push_back({def->name, width > 0 ? width : def->width, def->right});
  }
  if (out.empty()) return InvalidArgument("No fields requested");
  return out;
}

std::string SacctValue(const std::string& f, const SacctRow& r, int64_t now) {
  const AcctJob& j = *r.job;
  const AcctStep* s = r.step;
  if (f == "JobID" || f == "JobIDRaw") {
    std::string id = JobIdText(j, f == "JobIDRaw");
    return s ? id + "." + StepIdText(s->step_id()) : id;
  }
  if (f == "JobName") return s ? s->name() : j.name();
  if (f == "User") return s ? "" : j.user();
  if (f == "UID") return s ? "" : std::to_string(j.uid());
  if (f == "Group") return s ? "" : j.group();
  if (f == "GID") return s ? "" : std::to_string(j.gid());
  if (f == "Account") return j.account();
  if (f == "Partition") return s ? "" : j.partition();
  if (f == "QOS") return s ? "" : j.qos();
  if (f == "Cluster") return "";
  if (f == "State")
    return s ? SacctStateName(s->state(), false, 0)
             : SacctStateName(j.state(), true, j.has_cancelled_by() ? j.cancelled_by() : j.uid());
  if (f == "ExitCode") return ExitText(r);
  if (f == "DerivedExitCode") return s ? "" : "0:0";
  if (f == "Elapsed") return FormatHms(ElapsedS(r, now));
  if (f == "ElapsedRaw") return std::to_string(ElapsedS(r, now));
  if (f == "Start") return FormatTimestamp(Start(r));
  if (f == "End") return End(r) > 0 ? FormatTimestamp(End(r)) : "Unknown";
  if (f == "Submit") return FormatTimestamp(s ? s->start_time() : j.submit_time());
  if (f == "Eligible") return FormatTimestamp(s ? s->start_time() : j.eligible_time());
  if (f == "Timelimit") return s ? "" : FormatHmsLimit(j.time_limit_min());
  if (f == "NodeList") return s ? s->nodes() : j.nodes();
  if (f == "NNodes" || f == "AllocNodes") return std::to_string(s ? s->nnodes() : j.nnodes());
  if (f == "ReqNodes") return s ? "" : std::to_string(j.nnodes());
  if (f == "NTasks") return s ? std::to_string(s->ntasks()) : "";
  if (f == "AllocCPUS")
    return std::to_string(
        s ? s->alloc_cpus()
          : (j.alloc_cpus() > 0 ? j.alloc_cpus() : (j.start_time() > 0 ? 0 : j.req_cpus())));
  if (f == "ReqCPUS") return std::to_string(s ? s->alloc_cpus() : j.req_cpus());
  if (f == "AllocTRES") return s ? s->alloc_tres() : j.alloc_tres();
  if (f == "ReqTRES") return s ? "" : j.req_tres();
  if (f == "ReqMem") return s ? "" : FormatMemoryMb(j.req_mem_mb());
  if (f == "MaxRSS") return s ? KbText(s->max_rss_kb()) : "";
  if (f == "TotalCPU") return s ? CpuText(s->total_cpu_us()) : "";
  if (f == "TRESUsageInAve") return s ? s->tres_usage_in_ave() : "";
  if (f == "TRESUsageInMax") return s ? s->tres_usage_in_max() : "";
  if (f == "CPUTime") {
    int cpus = s ? s->alloc_cpus() : j.alloc_cpus();
    return FormatHms(ElapsedS(r, now) * cpus);
  }
  if (f == "WorkDir") return s ? "" : j.work_dir();
  if (f == "Restarts") return s ? "" : std::to_string(j.attempt());
  return "";
}

std::string FormatColumns(const std::vector<SacctField>& fields, size_t rows,
                          const std::function<std::string(const SacctField&, size_t row)>& value,
                          int parsable, bool header) {
  std::string out;
  auto line = [&](const std::function<std::string(const SacctField&)>& cell, bool cut) {
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string v = cell(fields[i]);
      if (parsable) {
        out += v;
        if (parsable == 1 || i + 1 < fields.size()) out += "|";
      } else {
        out += (cut ? Cut(v, fields[i].width, fields[i].right)
                    : Justify(v, fields[i].width, fields[i].right)) +
               " ";
      }
    }
    out += "\n";
  };
  if (header) {
    line([](const SacctField& f) { return f.name; }, true);
    if (!parsable) line([](const SacctField& f) { return std::string(f.width, '-'); }, false);
  }
  for (size_t r = 0; r < rows; ++r) {
    line([&](const SacctField& f) { return value(f, r); }, true);
  }
  return out;
}

std::string FormatSacct(const std::vector<SacctField>& fields, const std::vector<SacctRow>& rows,
                        int parsable, bool header, int64_t now) {
  return FormatColumns(
      fields, rows.size(),
      [&](const SacctField& f, size_t r) { return SacctValue(f.name, rows[r], now); }, parsable,
      header);
}

namespace {

nlohmann::json ExitJson(int code, int sig) {
  nlohmann::json e;
  if (sig != 0) {
    e["status"] = "SIGNALED";
    e["return_code"] = code;
    e["signal"] = {{"signal_id", sig}, {"name", SignalName(sig)}};
  } else {
    e["status"] = code == 0 ? "SUCCESS" : "FAILED";
    e["return_code"] = code;
  }
  return e;
}

nlohmann::json StepJson(const SacctRow& r, int64_t now) {
  const AcctStep& s = *r.step;
  nlohmann::json st;
  st["step"] = {{"job_id", r.job->job_id()}, {"id", StepIdText(s.step_id())}, {"name", s.name()}};
  st["state"] = SacctStateName(s.state(), false, 0);
  st["exit_code"] = ExitJson(s.exit_code(), s.term_signal());
  st["nodes"] = {{"count", s.nnodes()}, {"range", s.nodes()}};
  st["tasks"] = {{"count", s.ntasks()}};
  int64_t cpu = std::max<int64_t>(0, s.total_cpu_us());
  st["time"] = {{"elapsed", ElapsedS(r, now)},
                {"start", s.start_time()},
                {"end", s.end_time()},
                {"suspended", 0},
                {"total", {{"seconds", cpu / 1000000}, {"microseconds", cpu % 1000000}}}};
  // TRESUsageIn* is Slurm's "requested", TRESUsageOut* its "consumed".
  const nlohmann::json none = nlohmann::json::array();
  st["tres"] = {{"requested",
                 {{"max", TresJson(s.tres_usage_in_max())},
                  {"min", none},
                  {"average", TresJson(s.tres_usage_in_ave())},
                  {"total", none}}},
                {"consumed", {{"max", none}, {"min", none}, {"average", none}, {"total", none}}},
                {"allocated", TresJson(s.alloc_tres())}};
  if (s.max_rss_kb() >= 0) st["statistics"] = {{"max_rss_kb", s.max_rss_kb()}};
  return st;
}

nlohmann::json JobJson(const SacctRow& r, int64_t now, const std::string& cluster) {
  const AcctJob& j = *r.job;
  nlohmann::json o;
  o["job_id"] = j.job_id();
  o["name"] = j.name();
  o["user"] = j.user();
  o["group"] = j.group();
  o["account"] = j.account();
  o["partition"] = j.partition();
  o["qos"] = j.qos();
  o["nodes"] = j.nodes();
  o["allocation_nodes"] = j.nnodes();
  o["working_directory"] = j.work_dir();
  o["restart_cnt"] = j.attempt();
  // Slurm's other keys, with what Sluice knows (no comments, containers, het jobs, MCS
  // labels or wckeys here).
  o["cluster"] = cluster;
  o["association"] = {
      {"account", j.account()}, {"cluster", cluster}, {"partition", nullptr}, {"user", j.user()}};
  o["comment"] = {{"administrator", nullptr}, {"job", nullptr}, {"system", nullptr}};
  o["constraints"] = "";
  o["container"] = nullptr;
  o["flags"] = nlohmann::json::array();
  o["het"] = {{"job_id", 0}, {"job_offset", nullptr}};
  o["kill_request_user"] = nullptr;
  o["mcs"] = {{"label", ""}};
  o["priority"] = 0;
  o["reservation"] = {{"id", 0}, {"name", 0}};
  o["wckey"] = {{"wckey", ""}, {"flags", nlohmann::json::array()}};
  o["array"] = {
      {"job_id", j.array_job_id()},
      {"task_id", j.array_job_id() > 0 ? nlohmann::json(j.array_task_id()) : nlohmann::json()}};
  std::string state = SacctStateName(j.state(), false, 0);
  o["state"] = {{"current", state}, {"reason", "None"}};
  o["exit_code"] =
      Cancelledish(j.state()) ? ExitJson(0, 0) : ExitJson(j.exit_code(), j.term_signal());
  o["derived_exit_code"] = ExitJson(0, 0);
  o["time"] = {
      {"elapsed", ElapsedS(r, now)},
      {"eligible", j.eligible_time()},
      {"end", j.end_time()},
      {"start", j.start_time()},
      {"submission", j.submit_time()},
      {"suspended", 0},
      {"limit", j.time_limit_min() < 0 ? nlohmann::json() : nlohmann::json(j.time_limit_min())}};
  o["required"] = {{"CPUs", j.req_cpus()}, {"memory", j.req_mem_mb()}};
  o["tres"] = {{"allocated", TresJson(j.alloc_tres())}, {"requested", TresJson(j.req_tres())}};
  o["steps"] = nlohmann::json::array();
  return o;
}

// One job of the listing: its record and the rows of its steps that were picked.
struct JobRows {
  const AcctJob* job = nullptr;  // its record is the job's, also when only steps were picked
  std::vector<const SacctRow*> steps;
};

}  // namespace

std::string FormatSacctJson(const std::vector<SacctRow>& rows, int64_t now,
                            const std::string& cluster) {
  std::vector<JobRows> jobs;
  for (const SacctRow& r : rows) {
    if (jobs.empty() || jobs.back().job != r.job) jobs.push_back({r.job, {}});
    if (r.step) jobs.back().steps.push_back(&r);
  }
  nlohmann::json root;
  root["meta"] = {
      {"plugin", {{"type", "openapi/dbv0.0.38"}, {"name", "Slurm OpenAPI DB v0.0.38"}}},
      {"Slurm",
       {{"version", {{"major", 22}, {"micro", 8}, {"minor", 5}}}, {"release", "22.05.8"}}}};
  root["errors"] = nlohmann::json::array();
  return DumpListing(std::move(root), "jobs", jobs, [&](const JobRows& g) {
    nlohmann::json o = JobJson(SacctRow{g.job, nullptr}, now, cluster);
    for (const SacctRow* step : g.steps) o["steps"].push_back(StepJson(*step, now));
    return o;
  });
}

}  // namespace sluice
