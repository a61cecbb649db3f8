#include "cli/scancel.h"

#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <optional>
#include <set>

#include "cli/array_view.h"
#include "cli/help_text.h"
#include "cli/job_states.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

enum Opt {
  kAccount = 1,
  kBatch,
  kFull,
  kName,
  kPartition,
  kQos,
  kQuiet,
  kSignal,
  kState,
  kUser,
  kVerbose,
  kVersion,
  kNodelist,
  kMe,
  kHelp,
  kIgnored,
  kUnsupported,
  kUsage
};

constexpr int kEsInvalidJobId = 2017;
constexpr int kEsAlreadyDone = 2021;
constexpr int kEsAccessDenied = 2002;

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"account", 'A', ArgKind::kRequired, kAccount},
      {"batch", 'b', ArgKind::kNone, kBatch},
      {"full", 'f', ArgKind::kNone, kFull},
      {"name", 'n', ArgKind::kRequired, kName},
      {"jobname", 0, ArgKind::kRequired, kName},
      {"partition", 'p', ArgKind::kRequired, kPartition},
      {"qos", 'q', ArgKind::kRequired, kQos},
      {"quiet", 'Q', ArgKind::kNone, kQuiet},
      {"signal", 's', ArgKind::kRequired, kSignal},
      {"state", 't', ArgKind::kRequired, kState},
      {"user", 'u', ArgKind::kRequired, kUser},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"nodelist", 'w', ArgKind::kRequired, kNodelist},
      {"me", 0, ArgKind::kNone, kMe},
      {"help", 0, ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
      {"hurry", 'H', ArgKind::kNone, kIgnored},
      {"ctld", 0, ArgKind::kNone, kIgnored},
      {"sibling", 0, ArgKind::kRequired, kIgnored},
      {"wckey", 0, ArgKind::kRequired, kIgnored},
      {"interactive", 'i', ArgKind::kNone, kUnsupported},
      {"reservation", 'R', ArgKind::kRequired, kUnsupported},
  };
  return *d;
}

struct ScancelOptions {
  std::vector<JobSelector> sels;  // as typed: 12, 12_3, 12_[1-3]
  std::vector<StepRef> steps;     // 12.0: that step only
  int signal = 0;
  bool batch = false, full = false, quiet = false, me = false, help = false, usage = false,
       version = false;
  int verbose = 0;
  std::set<JobState> states;
  std::set<uint32_t> uids;
  std::string account, name, partition, qos;
  std::set<std::string> nodes;
  bool HasFilter() const {
    return !states.empty() || !uids.empty() || me || !account.empty() || !name.empty() ||
           !partition.empty() || !qos.empty() || !nodes.empty();
  }
};

Status ApplyValueOption(const ParsedOption& o, ScancelOptions* s, CliEnv& env) {
  switch (o.id) {
    case kSignal: {
      Expected<int> sig = ParseSignal(o.value);
      if (!sig.ok()) return InvalidArgument("Invalid job signal: " + o.value);
      s->signal = *sig;
      return Status::Ok();
    }
    case kState: {
      Expected<std::set<JobState>> st = ParseJobStateList(o.value);
      if (!st.ok()) return InvalidArgument("Invalid job state specified: " + o.value);
      s->states = *st;
      return Status::Ok();
    }
    case kUser: {
      Expected<uint32_t> uid = env.user_id(o.value);
      if (!uid.ok()) return InvalidArgument("Invalid user name: " + o.value);
      s->uids.insert(*uid);
      return Status::Ok();
    }
    case kNodelist: {
      Expected<std::vector<std::string>> h = ExpandHostlist(o.value);
      if (!h.ok()) return InvalidArgument("Invalid node list: " + o.value);
      s->nodes.insert(h->begin(), h->end());
      return Status::Ok();
    }
    case kAccount:
      s->account = o.value;
      break;
    case kName:
      s->name = o.value;
      break;
    case kPartition:
      s->partition = o.value;
      break;
    case kQos:
      s->qos = o.value;
      break;
  }
  return Status::Ok();
}

Status ApplyOption(const ParsedOption& o, ScancelOptions* s, CliEnv& env) {
  switch (o.id) {
    case kBatch:
      s->batch = true;
      break;
    case kQuiet:
      s->quiet = true;
      break;
    case kVerbose:
      ++s->verbose;
      break;
    case kVersion:
      s->version = true;
      break;
    case kMe:
      s->me = true;
      break;
    case kHelp:
      s->help = true;
      break;
    case kUsage:
      s->usage = true;
      break;
    case kFull:
      s->full = true;
      break;
    case kIgnored:
      break;
    case kUnsupported:
      return FailedPrecondition(o.spelled + " is not supported yet");
    default:
      return ApplyValueOption(o, s, env);
  }
  return Status::Ok();
}

bool Matches(const JobInfo& j, const ScancelOptions& s, uint32_t my_uid) {
  if (s.states.empty() ? !IsActiveState(j.state()) : !s.states.count(j.state())) return false;
  if (!s.uids.empty() && !s.uids.count(j.uid())) return false;
  if (s.me && j.uid() != my_uid) return false;
  if (!s.account.empty() && j.spec().account() != s.account) return false;
  if (!s.name.empty() && j.spec().name() != s.name) return false;
  if (!s.partition.empty() && j.spec().partition() != s.partition) return false;
  if (!s.qos.empty() && j.spec().qos() != s.qos) return false;
  if (!s.nodes.empty()) {
    bool any = false;
    for (const NodeAlloc& a : j.alloc()) any = any || s.nodes.count(a.node());
    if (!any) return false;
  }
  return true;
}

// With filters: the ids of the matching jobs (ANDed with explicit ids).
// Plain jobs go in `whole`, array tasks in `exact` (so a task is never taken for its array).
Expected<ResolvedIds> SelectJobs(const ScancelOptions& s, ClientApiInterface* api,
                                 uint32_t my_uid) {
  GetJobsRequest req;
  AddSelectors(s.sels, &req);
  ASSIGN_OR_RETURN(GetJobsReply rep, api->GetJobs(req));
  ResolvedIds out;
  for (const JobInfo& j : rep.jobs()) {
    bool listed = s.sels.empty() || AnySelectorMatches(s.sels, j);
    if (listed && Matches(j, s, my_uid)) {
      (j.array_job_id() != 0 ? out.exact : out.whole).push_back(j.job_id());
    }
  }
  return out;
}

// "JOB.STEP" with both numeric: one step (scancel's job_id.step_id); else nullopt.
std::optional<StepRef> ParseStepRef(const std::string& text) {
  const size_t dot = text.find('.');
  if (dot == std::string::npos) return std::nullopt;
  int64_t job = 0;
  int32_t step = 0;
  const char* end = text.data() + text.size();
  auto j = std::from_chars(text.data(), text.data() + dot, job);
  auto st = std::from_chars(text.data() + dot + 1, end, step);
  if (j.ec != std::errc() || j.ptr != text.data() + dot || st.ec != std::errc() || st.ptr != end ||
      job <= 0 || step < 0) {
    return std::nullopt;
  }
  StepRef ref;
  ref.set_job_id(job);
  ref.set_step_id(step);
  return ref;
}

int Report(const CancelReply& rep, const ScancelOptions& s, CliEnv& env) {
  int rc = 0;
  for (const CancelResult& r : rep.results()) {
    if (r.code() == 0) continue;
    int err = SlurmErrno(r.code(), r.message());
    bool benign = err == kEsInvalidJobId || err == kEsAlreadyDone;
    if (benign && s.verbose == 0) continue;
    if (!s.quiet || !benign) {
      *env.err << "scancel: error: Kill job error on job "
               << (r.has_step_id() ? fmt::format("step id {}.{}", r.job_id(), r.step_id())
                                   : fmt::format("id {}", r.job_id()))
               << ": " << r.message() << "\n";
    }
    if (!benign) rc = err & 0xff;
  }
  return rc;
}

int Cancel(const ScancelOptions& s, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  if (!api.ok()) {
    *env.err << "scancel: error: " << api.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> missing;
  ResolvedIds r;
  if (s.HasFilter()) {  // the filter picks single jobs (tasks), never whole arrays
    Expected<ResolvedIds> sel = SelectJobs(s, *api, env.uid);
    if (!sel.ok()) {
      *env.err << "scancel: error: slurm_load_jobs error: " << sel.status().message() << "\n";
      return 1;
    }
    r = *sel;
  } else {
    r = ResolveSelectors(s.sels, *api, &missing);
  }
  for (const std::string& m : missing) {
    if (s.verbose > 0)
      *env.err << "scancel: error: Kill job error on job id " << m
               << ": Invalid job id specified\n";
  }
  std::vector<int64_t> ids = r.whole;
  ids.insert(ids.end(), r.exact.begin(), r.exact.end());
  if (ids.empty() && s.steps.empty()) return 0;
  CancelRequest req;
  for (const StepRef& step : s.steps) {
    *req.add_steps() = step;
    if (s.verbose > 0) {
      *env.err << "scancel: " << (s.signal ? fmt::format("Signal {} to", s.signal) : "Terminating")
               << " step " << step.job_id() << "." << step.step_id() << "\n";
    }
  }
  for (int64_t id : r.whole) req.add_job_ids(id);
  for (int64_t id : r.exact) req.add_exact_job_ids(id);
  for (int64_t id : ids) {
    if (s.verbose > 0) {
      if (s.signal) {
        *env.err << "scancel: Signal " << s.signal << " to job " << id << "\n";
      } else {
        *env.err << "scancel: Terminating job " << id << "\n";
      }
    }
  }
  req.set_signal(s.signal);
  req.set_batch_only(s.batch);
  req.set_full(s.full);
  Expected<CancelReply> rep = (*api)->CancelJobs(req);
  if (!rep.ok()) {
    for (int64_t id : ids)
      *env.err << "scancel: error: Kill job error on job id " << id << ": "
               << rep.status().message() << "\n";
    return 1;
  }
  return Report(*rep, s, env);
}

}  // namespace

int SlurmErrno(int code, const std::string& message) {
  if (code >= 2000) return code;
  if (message == "Invalid job id specified") return kEsInvalidJobId;
  if (message == "Job/step already completing or completed") return kEsAlreadyDone;
  if (message == "Access/permission denied") return kEsAccessDenied;
  switch (static_cast<Code>(code)) {
    case Code::kNotFound:
      return kEsInvalidJobId;
    case Code::kPermissionDenied:
      return kEsAccessDenied;
    case Code::kFailedPrecondition:
      return kEsAlreadyDone;
    default:
      return 1;
  }
}

int RunScancel(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("scancel", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"scancel --help\" for more information\n";
    return 1;
  }
  ScancelOptions s;
  for (const ParsedOption& o : parsed->options) {
    Status st = ApplyOption(o, &s, env);
    if (!st.ok()) {
      *env.err << "scancel: error: " << st.message() << "\n";
      return 1;
    }
  }
  if (s.help || s.usage) {
    *env.out << HelpText("scancel", s.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  if (s.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  for (const std::string& p : parsed->positionals) {
    if (std::optional<StepRef> step = ParseStepRef(p)) {
      s.steps.push_back(*step);
      continue;
    }
    Expected<std::vector<JobSelector>> sels = ParseJobSelectors(p);
    if (!sels.ok()) {
      *env.err << "scancel: error: " << sels.status().message() << "\n";
      return 1;
    }
    s.sels.insert(s.sels.end(), sels->begin(), sels->end());
  }
  if (s.sels.empty() && s.steps.empty() && !s.HasFilter()) {
    *env.err << "scancel: error: No job identification provided\n";
    return 1;
  }
  return Cancel(s, env);
}

}  // namespace sluice
