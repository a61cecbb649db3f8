#include "cli/sacct.h"

#include <fmt/format.h>

#include <ctime>
#include <map>
#include <ostream>
#include <set>

#include "acct/acct_record.h"
#include "cli/help_text.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"
#include "cli/own_config.h"
#include "cli/sacct_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

enum Opt {
  kAll = 1,
  kAccounts,
  kBrief,
  kDup,
  kEnd,
  kStart,
  kJobs,
  kNoHeader,
  kFormat,
  kParsable,
  kParsable2,
  kState,
  kUser,
  kAllocs,
  kJson,
  kVersion,
  kHelp,
  kIgnored,
  kLong,
  kUsage
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"allusers", 'a', ArgKind::kNone, kAll},
      {"accounts", 'A', ArgKind::kRequired, kAccounts},
      {"brief", 'b', ArgKind::kNone, kBrief},
      {"duplicates", 'D', ArgKind::kNone, kDup},
      {"endtime", 'E', ArgKind::kRequired, kEnd},
      {"starttime", 'S', ArgKind::kRequired, kStart},
      {"jobs", 'j', ArgKind::kRequired, kJobs},
      {"noheader", 'n', ArgKind::kNone, kNoHeader},
      {"format", 'o', ArgKind::kRequired, kFormat},
      {"parsable", 'p', ArgKind::kNone, kParsable},
      {"parsable2", 'P', ArgKind::kNone, kParsable2},
      {"state", 's', ArgKind::kRequired, kState},
      {"user", 'u', ArgKind::kRequired, kUser},
      {"uid", 0, ArgKind::kRequired, kUser},
      {"allocations", 'X', ArgKind::kNone, kAllocs},
      {"json", 0, ArgKind::kNone, kJson},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"long", 'l', ArgKind::kNone, kLong},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
      {"allclusters", 'L', ArgKind::kNone, kIgnored},
      {"verbose", 'v', ArgKind::kNone, kIgnored},
  };
  return *d;
}

struct JobSel {
  int64_t id = 0;
  bool whole = true;  // no step given
  std::string step;   // "0", "batch", ...
  int64_t task = -1;  // 44_2 -> task 2
};

struct Options {
  bool all = false, dup = false, header = true, allocs = false, json = false, help = false,
       usage = false, version = false;
  int parsable = 0;
  std::string format, start, end;
  std::vector<JobSel> jobs;
  std::set<std::string> accounts, users;
  std::set<int> states;
};

int Fail(CliEnv& env, const std::string& msg) {
  *env.err << "sacct: error: " << msg << "\n";
  return 1;
}

Expected<std::set<int>> ParseStates(const std::string& list) {
  static const std::map<std::string, int> kNames = {
      {"PD", JOB_PENDING},
      {"PENDING", JOB_PENDING},
      {"R", JOB_RUNNING},
      {"RUNNING", JOB_RUNNING},
      {"CD", JOB_COMPLETED},
      {"COMPLETED", JOB_COMPLETED},
      {"F", JOB_FAILED},
      {"FAILED", JOB_FAILED},
      {"CA", JOB_CANCELLED},
      {"CANCELLED", JOB_CANCELLED},
      {"TO", JOB_TIMEOUT},
      {"TIMEOUT", JOB_TIMEOUT},
      {"NF", JOB_NODE_FAIL},
      {"NODE_FAIL", JOB_NODE_FAIL},
      {"OOM", JOB_OUT_OF_MEMORY},
      {"OUT_OF_MEMORY", JOB_OUT_OF_MEMORY},
      {"RQ", acct::kStateRequeued},
      {"REQUEUED", acct::kStateRequeued},
      {"CG", JOB_COMPLETING},
      {"COMPLETING", JOB_COMPLETING},
      // Slurm states Sluice never has: accepted, match nothing.
      {"BF", -1},
      {"BOOT_FAIL", -1},
      {"DL", -1},
      {"DEADLINE", -1},
      {"PR", -1},
      {"PREEMPTED", -1},
      {"RS", -1},
      {"RESIZING", -1},
      {"RV", -1},
      {"REVOKED", -1},
      {"S", -1},
      {"SUSPENDED", -1}};
  std::set<int> out;
  for (std::string w : SplitList(list)) {
    for (auto& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto it = kNames.find(w);
    if (it == kNames.end()) return InvalidArgument(fmt::format("Invalid state: {}", w));
    out.insert(it->second);
  }
  return out;
}

Expected<JobSel> ParseJobSel(const std::string& w) {
  JobSel s;
  std::string id = w;
  if (size_t dot = w.find('.'); dot != std::string::npos) {
    id = w.substr(0, dot);
    s.step = w.substr(dot + 1);
    s.whole = false;
    if (s.step.empty()) return InvalidArgument("Invalid job id: " + w);
  }
  std::string task;
  if (size_t us = id.find('_'); us != std::string::npos) {
    task = id.substr(us + 1);
    id = id.substr(0, us);
  }
  char* end = nullptr;
  long long v = std::strtoll(id.c_str(), &end, 10);
  if (id.empty() || *end != '\0' || v <= 0) return InvalidArgument("Invalid job id: " + w);
  s.id = v;
  if (!task.empty()) {
    long long t = std::strtoll(task.c_str(), &end, 10);
    if (*end != '\0' || t < 0) return InvalidArgument("Invalid job id: " + w);
    s.task = t;
  }
  return s;
}

std::string StepName(int id) {
  if (id == acct::kBatchStep) return "batch";
  if (id == acct::kExternStep) return "extern";
  return std::to_string(id);
}

// Does the selection list pick this job row / step row?
bool Picked(const std::vector<JobSel>& sel, const AcctJob& j, const AcctStep* s) {
  if (sel.empty()) return true;
  for (const JobSel& x : sel) {
    bool job_match = (x.task < 0 && (x.id == j.job_id() || x.id == j.array_job_id())) ||
                     (x.task >= 0 && x.id == j.array_job_id() && x.task == j.array_task_id());
    if (!job_match) continue;
    if (x.whole) return true;
    if (s && StepName(s->step_id()) == x.step) return true;
  }
  return false;
}

Status Apply(const ParsedOption& o, Options* s) {
  switch (o.id) {
    case kAll:
      s->all = true;
      break;
    case kDup:
      s->dup = true;
      break;
    case kNoHeader:
      s->header = false;
      break;
    case kAllocs:
      s->allocs = true;
      break;
    case kJson:
      s->json = true;
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
    case kParsable:
      s->parsable = 1;
      break;
    case kParsable2:
      s->parsable = 2;
      break;
    case kBrief:
      s->format = "JobID,State,ExitCode";
      break;
    case kLong:
      s->format =
          "JobID,JobIDRaw,JobName,Partition,MaxRSS,NTasks,AllocCPUS,Elapsed,State,"
          "ExitCode,ReqMem,ReqTRES,AllocTRES,TotalCPU";
      break;
    case kFormat:
      s->format = o.value;
      break;
    case kStart:
      s->start = o.value;
      break;
    case kEnd:
      s->end = o.value;
      break;
    case kAccounts:
      for (auto& a : SplitList(o.value)) s->accounts.insert(a);
      break;
    case kUser:
      for (auto& u : SplitList(o.value)) s->users.insert(u);
      break;
    case kState: {
      ASSIGN_OR_RETURN(auto st, ParseStates(o.value));
      s->states.insert(st.begin(), st.end());
      break;
    }
    case kJobs:
      for (auto& w : SplitList(o.value)) {
        ASSIGN_OR_RETURN(JobSel sel, ParseJobSel(w));
        s->jobs.push_back(sel);
      }
      break;
  }
  return Status::Ok();
}

}  // namespace

int RunSacct(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sacct", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sacct --help\" for more information\n";
    return 1;
  }
  Options o;
  for (const ParsedOption& p : parsed->options) {
    if (Status st = Apply(p, &o); !st.ok()) return Fail(env, st.message());
  }
  if (!parsed->positionals.empty())
    return Fail(env, "Unknown arguments: " + parsed->positionals[0]);
  if (o.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (o.help || o.usage) {
    *env.out << HelpText("sacct", o.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  std::vector<SacctField> fields = DefaultSacctFields();
  if (!o.format.empty()) {
    auto f = ParseSacctFormat(o.format);
    if (!f.ok()) return Fail(env, f.status().message());
    fields = std::move(f).value();
  }
  int64_t now = env.clock->Now();
  int64_t start = o.jobs.empty() ? LocalMidnight(now) : 0;
  int64_t end = 0;
  if (!o.start.empty()) {
    auto t = ParseSacctTime(o.start, now);
    if (!t.ok()) return Fail(env, t.status().message());
    start = *t;
  }
  if (!o.end.empty()) {
    auto t = ParseSacctTime(o.end, now);
    if (!t.ok()) return Fail(env, t.status().message());
    end = *t;
  }
  if (end > 0 && start > end) {
    return Fail(env, "Start time (" + std::to_string(start) + ") is after end time (" +
                         std::to_string(end) + ")");
  }
  // Users: names or uids; default the caller alone unless root or -a.
  std::set<uint32_t> uids;
  for (const std::string& u : o.users) {
    char* e = nullptr;
    unsigned long v = std::strtoul(u.c_str(), &e, 10);
    if (!u.empty() && *e == '\0') {
      uids.insert(static_cast<uint32_t>(v));
      continue;
    }
    auto id = env.user_id ? env.user_id(u) : Expected<uint32_t>(NotFound(u));
    if (!id.ok()) return Fail(env, "Invalid user id: " + u);
    uids.insert(*id);
  }
  bool only_me = o.users.empty() && !o.all && env.uid != 0;

  // The controller applies the filters too (each job with all its attempts: which to
  // print is still chosen here).
  AcctJobsRequest req;
  for (const JobSel& s : o.jobs) req.add_job_ids(s.id);
  req.set_start(start);
  req.set_end(end);
  if (only_me) req.add_uids(env.uid);
  for (uint32_t uid : uids) req.add_uids(uid);
  for (const std::string& a : o.accounts) req.add_accounts(a);
  for (int st : o.states) req.add_states(st);
  Expected<ClientApiInterface*> api = env.connect();
  if (!api.ok()) return Fail(env, api.status().message());
  Expected<AcctJobsReply> reply = (*api)->AcctJobs(req);
  if (!reply.ok()) return Fail(env, reply.status().message());

  // Latest attempt per job unless -D.
  std::map<int64_t, int32_t> latest;
  for (const AcctJob& j : reply->jobs())
    latest[j.job_id()] = std::max(latest[j.job_id()], j.attempt());
  std::map<std::pair<int64_t, int32_t>, std::vector<const AcctStep*>> steps;
  for (const AcctStep& s : reply->steps()) steps[{s.job_id(), s.attempt()}].push_back(&s);
  std::vector<SacctRow> rows;
  for (const AcctJob& j : reply->jobs()) {
    if (!o.dup && j.attempt() != latest[j.job_id()]) continue;
    if (only_me && j.uid() != env.uid) continue;
    if (!uids.empty() && !uids.count(j.uid())) continue;
    if (!o.accounts.empty() && !o.accounts.count(j.account())) continue;
    if (!o.states.empty() && !o.states.count(j.state())) continue;
    bool job_picked = Picked(o.jobs, j, nullptr);
    if (job_picked) rows.push_back({&j, nullptr});
    if (o.allocs) continue;
    for (const AcctStep* s : steps[{j.job_id(), j.attempt()}]) {
      if (job_picked || Picked(o.jobs, j, s)) rows.push_back({&j, s});
    }
  }
  if (o.json) {
    *env.out << FormatSacctJson(rows, now, LoadOwnConfig(env).cluster_name);
    return 0;
  }
  *env.out << FormatSacct(fields, rows, o.parsable, o.header, now);
  return 0;
}

}  // namespace sluice
