#include "cli/squeue_steps.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "cli/list_args.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

// -O names -> -o letters, and the headers Slurm prints.
const std::map<std::string, std::string>& NamedKeys() {
  static const auto* m = new std::map<std::string, std::string>{
      {"stepid", "i"},    {"stepname", "j"},  {"name", "j"},     {"partition", "P"},
      {"username", "u"},  {"userid", "U"},    {"timeused", "M"}, {"nodelist", "N"},
      {"starttime", "S"}, {"timelimit", "l"}, {"numtasks", "A"}, {"numcpus", "C"},
  };
  return *m;
}

std::string Header(const std::string& key) {
  static const auto* h = new std::map<std::string, std::string>{
      {"i", "STEPID"},     {"j", "NAME"},  {"P", "PARTITION"}, {"u", "USER"},
      {"U", "UID"},        {"M", "TIME"},  {"N", "NODELIST"},  {"S", "START_TIME"},
      {"l", "TIME_LIMIT"}, {"A", "TASKS"}, {"C", "CPUS"},
  };
  auto it = h->find(key);
  return it == h->end() ? "" : it->second;
}

std::string Value(const std::string& key, const StepInfo& s, int64_t now) {
  if (key == "i") return std::to_string(s.job_id()) + "." + std::to_string(s.step_id());
  if (key == "j") return s.name();
  if (key == "P") return s.partition();
  if (key == "u") return s.user().empty() ? std::to_string(s.uid()) : s.user();
  if (key == "U") return std::to_string(s.uid());
  if (key == "M") return FormatDuration(std::max<int64_t>(0, now - s.start_time()));
  if (key == "N") return CompressHostlistSorted({s.nodes().begin(), s.nodes().end()});
  if (key == "S") return FormatTimestamp(s.start_time());
  if (key == "l") return FormatLimitMinutes(s.time_limit_min());
  if (key == "A") return std::to_string(s.ntasks());
  if (key == "C") return std::to_string(s.ncpus());
  return "";
}

Expected<std::vector<FormatField>> ChooseFields(const StepListOptions& o) {
  Expected<std::vector<FormatField>> fields =
      !o.format_long.empty() ? ParseNamedFormat(o.format_long)
                             : ParsePercentFormat(o.format.empty() ? kSqueueStepFormat : o.format);
  if (!fields.ok()) return fields;
  for (FormatField& f : *fields) {
    if (f.key.empty()) continue;
    if (!o.format_long.empty()) {
      auto it = NamedKeys().find(ToLower(f.key));
      if (it == NamedKeys().end())
        return InvalidArgument("Invalid job step format specification: " + f.key);
      f.key = it->second;
    } else if (Header(f.key).empty()) {
      return InvalidArgument("Invalid job step format specification: " + f.key);
    }
  }
  return fields;
}

}  // namespace

Status ParseStepList(const std::string& list, std::vector<std::pair<int64_t, int>>* out) {
  for (const std::string& id : SplitList(list)) {
    size_t dot = id.find('.');
    std::string job = id.substr(0, dot), step = dot == std::string::npos ? "" : id.substr(dot + 1);
    bool ok = !job.empty() && job.find_first_not_of("0123456789") == std::string::npos &&
              (dot == std::string::npos ||
               (!step.empty() && step.find_first_not_of("0123456789") == std::string::npos));
    if (!ok) return InvalidArgument("Invalid job step id: " + id);
    out->push_back({std::atoll(job.c_str()), step.empty() ? -1 : std::atoi(step.c_str())});
  }
  return Status::Ok();
}

std::string FormatStepTable(const std::vector<FormatField>& fields,
                            const std::vector<StepInfo>& steps, int64_t now, bool header) {
  std::string out;
  if (header) out += RenderLine(fields, [](const FormatField& f) { return Header(f.key); }) + "\n";
  for (const StepInfo& s : steps) {
    out += RenderLine(fields, [&](const FormatField& f) { return Value(f.key, s, now); }) + "\n";
  }
  return out;
}

int ShowSqueueSteps(const StepListOptions& o, CliEnv& env) {
  Expected<std::vector<FormatField>> fields = ChooseFields(o);
  if (!fields.ok()) {
    *env.err << "squeue: error: " << fields.status().message() << "\n";
    return 1;
  }
  // The controller filters (and the filters below again: a controller a version older may
  // not know the newer fields).
  GetStepsRequest req;
  for (const auto& [job, step] : o.steps) {
    StepRef* r = req.add_steps();
    r->set_job_id(job);
    r->set_step_id(step);
  }
  for (int64_t job : o.jobs) req.add_job_ids(job);
  for (uint32_t uid : o.uids) req.add_uids(uid);
  for (const std::string& p : o.partitions) req.add_partitions(p);
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetStepsReply> rep =
      api.ok() ? (*api)->GetSteps(req) : Expected<GetStepsReply>(api.status());
  if (!rep.ok()) {
    *env.err << "slurm_get_job_steps error: " << rep.status().message() << "\n";
    return 1;
  }
  std::vector<StepInfo> shown;
  for (const StepInfo& s : rep->steps()) {
    bool match = o.steps.empty();
    for (const auto& [j, st] : o.steps) match |= j == s.job_id() && (st < 0 || st == s.step_id());
    if (!match) continue;
    if (!o.jobs.empty() && !o.jobs.count(s.job_id())) continue;
    if (!o.uids.empty() && !o.uids.count(s.uid())) continue;
    if (!o.partitions.empty() && !o.partitions.count(s.partition())) continue;
    shown.push_back(s);
  }
  std::sort(shown.begin(), shown.end(), [](const StepInfo& a, const StepInfo& b) {
    return a.job_id() != b.job_id() ? a.job_id() < b.job_id() : a.step_id() < b.step_id();
  });
  *env.out << FormatStepTable(*fields, shown, env.clock->Now(), o.header);
  return 0;
}

}  // namespace sluice
