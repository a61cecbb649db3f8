#include "cli/sprio.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <set>

#include "cli/format_engine.h"
#include "cli/help_text.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"

namespace sluice {
namespace {

enum Opt {
  kNoHeader = 1,
  kJobs,
  kLong,
  kNorm,
  kFormat,
  kUser,
  kPartition,
  kWeights,
  kVersion,
  kHelp,
  kIgnored,
  kUsage,
  kVerbose
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"noheader", 'h', ArgKind::kNone, kNoHeader},
      {"jobs", 'j', ArgKind::kOptional, kJobs},
      {"long", 'l', ArgKind::kNone, kLong},
      {"norm", 'n', ArgKind::kNone, kNorm},
      {"format", 'o', ArgKind::kRequired, kFormat},
      {"user", 'u', ArgKind::kRequired, kUser},
      {"partition", 'p', ArgKind::kRequired, kPartition},
      {"weights", 'w', ArgKind::kNone, kWeights},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 0, ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
      {"local", 0, ArgKind::kNone, kIgnored},
      {"federation", 0, ArgKind::kNone, kIgnored},
      {"sort", 'S', ArgKind::kRequired, kIgnored},
  };
  return *d;
}

struct SprioOptions {
  bool header = true, long_fmt = false, norm = false, weights = false, help = false, usage = false,
       version = false, job_flag = false;
  int verbose = 0;
  std::string format;
  std::set<int64_t> jobs;
  std::set<std::string> users, partitions;
};

Status ApplyOption(const ParsedOption& o, SprioOptions* s) {
  switch (o.id) {
    case kNoHeader:
      s->header = false;
      break;
    case kLong:
      s->long_fmt = true;
      break;
    case kNorm:
      s->norm = true;
      break;
    case kWeights:
      s->weights = true;
      break;
    case kVerbose:
      ++s->verbose;
      break;
    case kVersion:
      s->version = true;
      break;
    case kHelp:
      s->help = true;
      break;
    case kUsage:
      s->usage = true;
      break;
    case kFormat:
      s->format = o.value;
      break;
    case kUser:
      for (auto& u : SplitList(o.value)) s->users.insert(u);
      break;
    case kPartition:
      for (auto& p : SplitList(o.value)) s->partitions.insert(p);
      break;
    case kJobs: {
      s->job_flag = true;
      if (!o.has_value) break;
      ASSIGN_OR_RETURN(auto ids, ParseJobIdList(o.value));
      s->jobs.insert(ids.begin(), ids.end());
      break;
    }
  }
  return Status::Ok();
}

std::string DefaultFormat(const SprioOptions& s, const GetPrioritiesReply& w) {
  const char* y = s.norm ? "y" : "Y";
  auto key = [&](char weighted) {
    return std::string(1, s.norm ? static_cast<char>(std::tolower(weighted)) : weighted);
  };
  if (s.long_fmt) {
    return fmt::format(
        "%.15i %9r %.8u %.10{} %.10S %.10{} %.10{} %.10{} %.10{} %.10{} %.10{} %.11N %.20{}", y,
        key('A'), key('B'), key('F'), key('J'), key('P'), key('Q'), key('T'));
  }
  std::string f = s.users.empty() ? "%.15i %9r" : "%.15i %9r %.8u";
  f += fmt::format(" %.10{} %.10S", y);
  if (w.weight_age()) f += " %.10" + key('A');
  if (w.weight_fairshare()) f += " %.10" + key('F');
  if (w.weight_job_size()) f += " %.10" + key('J');
  if (w.weight_partition()) f += " %.10" + key('P');
  if (w.weight_qos()) f += " %.10" + key('Q');
  if (!w.weight_tres().empty()) f += " %20" + key('T');
  return f;
}

std::string Header(const std::string& key) {
  switch (key.empty() ? ' ' : key[0]) {
    case 'i':
      return "JOBID";
    case 'r':
      return "PARTITION";
    case 'u':
      return "USER";
    case 'o':
      return "ACCOUNT";
    case 'Y':
    case 'y':
      return "PRIORITY";
    case 'S':
      return "SITE";
    case 'A':
    case 'a':
      return "AGE";
    case 'B':
    case 'b':
      return "ASSOC";
    case 'F':
    case 'f':
      return "FAIRSHARE";
    case 'J':
    case 'j':
      return "JOBSIZE";
    case 'P':
    case 'p':
      return "PARTITION";
    case 'Q':
    case 'q':
      return "QOS";
    case 'N':
      return "NICE";
    case 'T':
    case 't':
      return "TRES";
    case 'c':
      return "CLUSTER";
  }
  return "";
}

std::string Norm(double v) { return fmt::format("{:.7f}", v); }

std::string Cell(const std::string& key, const JobPriority& j) {
  switch (key.empty() ? ' ' : key[0]) {
    case 'i':
      return std::to_string(j.job_id());
    case 'r':
      return j.partition();
    case 'u':
      return j.user();
    case 'o':
      return j.account();
    case 'Y':
      return std::to_string(j.priority());
    case 'y':
      return Norm(static_cast<double>(j.priority()) / 4294967295.0);
    case 'S':
    case 'B':
      return "0";
    case 's':
    case 'b':
      return Norm(0);
    case 'A':
      return std::to_string(j.age());
    case 'a':
      return Norm(j.age_factor());
    case 'F':
      return std::to_string(j.fairshare());
    case 'f':
      return Norm(j.fairshare_factor());
    case 'J':
      return std::to_string(j.job_size());
    case 'j':
      return Norm(j.job_size_factor());
    case 'P':
      return std::to_string(j.partition_prio());
    case 'p':
      return Norm(j.partition_factor());
    case 'Q':
      return std::to_string(j.qos());
    case 'q':
      return Norm(j.qos_factor());
    case 'N':
      return std::to_string(j.nice());
  }
  return "";  // T/t: TRES factors are not computed
}

std::string WeightCell(const std::string& key, const GetPrioritiesReply& w) {
  switch (key.empty() ? ' ' : key[0]) {
    case 'i':
      return "Weights";
    case 'S':
    case 's':
      return "1";  // the site factor is added unweighted
    case 'A':
    case 'a':
      return std::to_string(w.weight_age());
    case 'F':
    case 'f':
      return std::to_string(w.weight_fairshare());
    case 'J':
    case 'j':
      return std::to_string(w.weight_job_size());
    case 'P':
    case 'p':
      return std::to_string(w.weight_partition());
    case 'Q':
    case 'q':
      return std::to_string(w.weight_qos());
    case 'T':
    case 't':
      return w.weight_tres();
  }
  return "";
}

bool Wanted(const JobPriority& j, const SprioOptions& s) {
  if (!s.jobs.empty() && !s.jobs.count(j.job_id())) return false;
  if (!s.users.empty() && !s.users.count(j.user()) && !s.users.count(std::to_string(j.uid()))) {
    return false;
  }
  return s.partitions.empty() || s.partitions.count(j.partition());
}

// -v: the options as sprio understood them, in Slurm's layout.
std::string VerboseReport(const SprioOptions& s) {
  auto list = [](const auto& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ",") + fmt::format("{}", i);
    return out.empty() ? std::string("(null)") : out;
  };
  const std::string rule = "-----------------------------\n";
  return rule + fmt::format("format     = {}\n", s.format.empty() ? "(null)" : s.format) +
         fmt::format("job_flag   = {}\n", s.job_flag ? 1 : 0) +
         fmt::format("jobs       = {}\n", list(s.jobs)) +
         fmt::format("partition  = {}\n", list(s.partitions)) +
         fmt::format("users      = {}\n", list(s.users)) +
         fmt::format("verbose    = {}\n", s.verbose) + rule;
}

int Show(const SprioOptions& s, CliEnv& env) {
  if (s.verbose > 0) *env.out << VerboseReport(s);
  Expected<ClientApiInterface*> api = env.connect();
  GetPrioritiesRequest req;
  for (int64_t id : s.jobs) req.add_job_ids(id);
  Expected<GetPrioritiesReply> reply =
      api.ok() ? (*api)->GetPriorities(req) : Expected<GetPrioritiesReply>(api.status());
  if (!reply.ok()) {
    *env.err << "sprio: error: slurm_load_job: " << reply.status().message() << "\n";
    return 1;
  }
  if (!reply->multifactor()) {
    *env.err << "You are not running a supported priority plugin\n(priority/basic).\n"
                "Only 'priority/multifactor' is supported.\n";
    return 1;
  }
  auto fields = ParsePercentFormat(s.format.empty() ? DefaultFormat(s, *reply) : s.format);
  if (!fields.ok()) {
    *env.err << "sprio: error: " << fields.status().message() << "\n";
    return 1;
  }
  std::vector<const JobPriority*> rows;
  for (const auto& j : reply->jobs()) {
    if (Wanted(j, s)) rows.push_back(&j);
  }
  if (rows.empty() && (!s.jobs.empty() || !s.users.empty())) {
    *env.out << "Unable to find jobs matching user/id(s) specified\n";
    return 0;
  }
  if (s.header)
    *env.out << RenderLine(*fields, [](const FormatField& f) { return Header(f.key); }) << "\n";
  if (s.weights) {
    *env.out << RenderLine(*fields, [&](const FormatField& f) { return WeightCell(f.key, *reply); })
             << "\n";
  }
  for (const JobPriority* j : rows) {
    *env.out << RenderLine(*fields, [&](const FormatField& f) { return Cell(f.key, *j); }) << "\n";
  }
  return 0;
}

}  // namespace

int RunSprio(const std::vector<std::string>& args, CliEnv& env) {
  ParseSettings settings;
  settings.optional_takes_next_word = {kJobs};
  Expected<ParsedArgs> parsed = ParseCommandLine("sprio", args, Defs(), settings);
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sprio --help\" for more information\n";
    return 1;
  }
  SprioOptions s;
  for (const ParsedOption& o : parsed->options) {
    Status st = ApplyOption(o, &s);
    if (!st.ok()) {
      *env.err << "sprio: error: " << st.message() << "\n";
      return 1;
    }
  }
  if (!parsed->positionals.empty()) {
    *env.err << "sprio: error: Unrecognized option: " << parsed->positionals[0] << "\n"
             << "Try \"sprio --help\" for more information\n";
    return 1;
  }
  if (s.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (s.help || s.usage) {
    *env.out << HelpText("sprio", s.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  return Show(s, env);
}

}  // namespace sluice
