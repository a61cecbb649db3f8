#include "cli/squeue.h"

#include <algorithm>
#include <ctime>
#include <iostream>
#include <set>

#include "cli/array_view.h"
#include "cli/help_text.h"
#include "cli/job_states.h"
#include "cli/list_args.h"
#include "cli/opt_parser.h"
#include "cli/own_config.h"
#include "cli/query_json.h"
#include "cli/sinfo.h"
#include "cli/squeue_format.h"
#include "cli/squeue_steps.h"
#include "common/hostlist.h"

namespace sluice {
namespace {

enum Opt {
  kAccount = 1,
  kAll,
  kNoHeader,
  kJobs,
  kLong,
  kName,
  kMe,
  kFormat,
  kFormatLong,
  kPartition,
  kQos,
  kArray,
  kSort,
  kStart,
  kStates,
  kUser,
  kNodelist,
  kVerbose,
  kVersion,
  kHelp,
  kUsage,
  kIgnored,
  kUnsupported,
  kSteps,
  kJson,
};

const std::vector<OptionDef>& Defs() {
  static const auto* d = new std::vector<OptionDef>{
      {"account", 'A', ArgKind::kRequired, kAccount},
      {"all", 'a', ArgKind::kNone, kAll},
      {"noheader", 'h', ArgKind::kNone, kNoHeader},
      {"jobs", 'j', ArgKind::kOptional, kJobs},
      {"long", 'l', ArgKind::kNone, kLong},
      {"name", 'n', ArgKind::kRequired, kName},
      {"me", 0, ArgKind::kNone, kMe},
      {"format", 'o', ArgKind::kRequired, kFormat},
      {"Format", 'O', ArgKind::kRequired, kFormatLong},
      {"partition", 'p', ArgKind::kRequired, kPartition},
      {"qos", 'q', ArgKind::kRequired, kQos},
      {"array", 'r', ArgKind::kNone, kArray},
      {"sort", 'S', ArgKind::kRequired, kSort},
      {"start", 0, ArgKind::kNone, kStart},
      {"states", 't', ArgKind::kRequired, kStates},
      {"user", 'u', ArgKind::kRequired, kUser},
      {"nodelist", 'w', ArgKind::kRequired, kNodelist},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 0, ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"clusters", 'M', ArgKind::kRequired, kIgnored},
      {"noconvert", 0, ArgKind::kNone, kIgnored},
      {"local", 0, ArgKind::kNone, kIgnored},
      {"federation", 0, ArgKind::kNone, kIgnored},
      {"iterate", 'i', ArgKind::kRequired, kUnsupported},
      {"steps", 's', ArgKind::kOptional, kSteps},
      {"json", 0, ArgKind::kNone, kJson},
      {"yaml", 0, ArgKind::kNone, kUnsupported},
      {"licenses", 'L', ArgKind::kRequired, kUnsupported},
      {"reservation", 'R', ArgKind::kRequired, kUnsupported},
  };
  return *d;
}

struct SqueueOptions {
  bool header = true, long_format = false, start = false, me = false, help = false, usage = false,
       version = false, json = false;
  std::string format, format_long;
  std::vector<JobSelector> jobs;  // -j
  bool array = false;             // -r: one line per array task
  std::set<JobState> states;
  bool states_given = false;
  std::set<uint32_t> uids;
  std::set<std::string> names, partitions, accounts, qos, nodes;
  bool steps = false;  // -s: list job steps instead of jobs
  std::string step_list;
};

Status ApplyFilterOption(const ParsedOption& o, SqueueOptions* s, CliEnv& env) {
  switch (o.id) {
    case kJobs: {
      if (!o.has_value) return Status::Ok();
      ASSIGN_OR_RETURN(std::vector<JobSelector> sels, ParseJobSelectors(o.value));
      s->jobs.insert(s->jobs.end(), sels.begin(), sels.end());
      return Status::Ok();
    }
    case kStates: {
      Expected<std::set<JobState>> st = ParseJobStateList(o.value);
      if (!st.ok())
        return InvalidArgument("Invalid job state specified: " + st.status().message() +
                               "\nValid job states include: " + kValidJobStates + "\n");
      s->states.insert(st->begin(), st->end());
      s->states_given = true;
      return Status::Ok();
    }
    case kUser:
      for (const std::string& u : SplitList(o.value)) {
        Expected<uint32_t> uid = env.user_id(u);
        if (!uid.ok()) return InvalidArgument("Invalid user: " + u);
        s->uids.insert(*uid);
      }
      return Status::Ok();
    case kNodelist: {
      Expected<std::vector<std::string>> hosts = ExpandHostlist(o.value);
      if (!hosts.ok()) return InvalidArgument("Invalid node name " + o.value);
      s->nodes.insert(hosts->begin(), hosts->end());
      return Status::Ok();
    }
  }
  auto add = [&](std::set<std::string>* set) {
    for (const std::string& v : SplitList(o.value)) set->insert(v);
  };
  if (o.id == kName) add(&s->names);
  if (o.id == kPartition) add(&s->partitions);
  if (o.id == kAccount) add(&s->accounts);
  if (o.id == kQos) add(&s->qos);
  return Status::Ok();
}

Status ApplyOption(const ParsedOption& o, SqueueOptions* s, CliEnv& env) {
  switch (o.id) {
    case kNoHeader:
      s->header = false;
      break;
    case kLong:
      s->long_format = true;
      break;
    case kStart:
      s->start = true;
      break;
    case kMe:
      s->me = true;
      break;
    case kFormat:
      s->format = o.value;
      break;
    case kFormatLong:
      s->format_long = o.value;
      break;
    case kHelp:
      s->help = true;
      break;
    case kUsage:
      s->usage = true;
      break;
    case kVersion:
      s->version = true;
      break;
    case kUnsupported:
      return FailedPrecondition(o.spelled + " is not supported yet");
    case kArray:
      s->array = true;
      break;
    case kJson:
      s->json = true;
      break;
    case kSteps:
      s->steps = true;
      if (o.has_value) s->step_list += (s->step_list.empty() ? "" : ",") + o.value;
      break;
    case kAll:
    case kSort:
    case kVerbose:
    case kIgnored:
      break;
    default:
      return ApplyFilterOption(o, s, env);
  }
  return Status::Ok();
}

// -t (default: the active states; with --json every state, as Slurm 22.05), --start
// (pending only).
bool StateWanted(JobState st, const SqueueOptions& s) {
  if (s.states_given ? !s.states.count(st) : !(s.json || IsActiveState(st))) return false;
  return !s.start || st == JOB_PENDING;
}

bool Matches(const JobInfo& j, const SqueueOptions& s, uint32_t my_uid) {
  if (!StateWanted(j.state(), s)) return false;
  if (!s.jobs.empty() && !AnySelectorMatches(s.jobs, j)) return false;
  if (!s.uids.empty() && !s.uids.count(j.uid())) return false;
  if (s.me && j.uid() != my_uid) return false;
  if (!s.names.empty() && !s.names.count(j.spec().name())) return false;
  if (!s.partitions.empty() && !s.partitions.count(j.spec().partition())) return false;
  if (!s.accounts.empty() && !s.accounts.count(j.spec().account())) return false;
  if (!s.qos.empty() && !s.qos.count(j.spec().qos().empty() ? "normal" : j.spec().qos()))
    return false;
  if (!s.nodes.empty()) {
    bool any = false;
    for (const NodeAlloc& a : j.alloc()) any = any || s.nodes.count(a.node());
    if (!any) return false;
  }
  return true;
}

Expected<std::vector<FormatField>> ChooseFormat(const SqueueOptions& s, CliEnv& env) {
  Expected<std::vector<FormatField>> fields = Status(Code::kInternal, "unset");
  std::string env_fmt = env.Getenv("SQUEUE_FORMAT"), env_fmt2 = env.Getenv("SQUEUE_FORMAT2");
  if (!s.format_long.empty()) {
    fields = ParseNamedFormat(s.format_long);
  } else if (!s.format.empty()) {
    fields = ParsePercentFormat(s.format);
  } else if (s.start) {
    fields = ParsePercentFormat(kSqueueStartFormat);
  } else if (s.long_format) {
    fields = ParsePercentFormat(kSqueueLongFormat);
  } else if (!env_fmt2.empty()) {
    fields = ParseNamedFormat(env_fmt2);
  } else {
    fields = ParsePercentFormat(env_fmt.empty() ? kSqueueDefaultFormat : env_fmt);
  }
  if (!fields.ok()) return fields;
  RETURN_IF_ERROR(ValidateSqueueFields(&*fields));
  return fields;
}

int Fail(CliEnv& env, const Status& st) {
  std::string msg = st.message();
  size_t pos = 0;
  while (pos < msg.size()) {
    size_t nl = msg.find('\n', pos);
    if (nl == std::string::npos) nl = msg.size();
    *env.err << "squeue: error: " << msg.substr(pos, nl - pos) << "\n";
    if (nl + 1 == msg.size()) *env.err << "\n";
    pos = nl + 1;
  }
  return 1;
}

// What the output needs, and what Matches reads for the filters given.
void AddFieldPaths(const SqueueOptions& s, const std::vector<FormatField>& fields,
                   google::protobuf::FieldMask* mask) {
  for (const std::string& p : SqueueFieldPaths(fields)) mask->add_paths(p);
  if (!s.names.empty()) mask->add_paths("spec.name");
  if (!s.accounts.empty()) mask->add_paths("spec.account");
  if (!s.qos.empty()) mask->add_paths("spec.qos");
  if (!s.nodes.empty()) mask->add_paths("alloc");
}

// The query: -j ids, else the filters the controller applies (so it sends only those
// jobs; Matches still checks each one here). With -j no filter is sent: a job named but
// filtered out must still come back, or squeue would take it for an invalid id.
// Only the fields printed (and those squeue reads itself) are asked for; --json prints
// every field.
GetJobsRequest Query(const SqueueOptions& s, const std::vector<FormatField>& fields,
                     uint32_t my_uid) {
  GetJobsRequest req;
  // The controller compresses pending tasks; CompressPendingTasks below still does it for
  // a controller that predates the flag (and leaves compressed records as they are).
  req.set_compress_pending_tasks(!s.array && !s.json);
  if (!s.json) AddFieldPaths(s, fields, req.mutable_fields());
  AddSelectors(s.jobs, &req);
  if (!s.jobs.empty()) return req;
  // Not through JobState_descriptor(): building the descriptors costs a one-shot
  // command about a millisecond.
  for (int v = JobState_MIN; v <= JobState_MAX; ++v) {
    if (JobState_IsValid(v) && StateWanted(static_cast<JobState>(v), s)) {
      req.add_states(static_cast<JobState>(v));
    }
  }
  // Only states Sluice does not have (-t S): no job is in JOB_STATE_UNSPECIFIED either.
  if (req.states().empty()) req.add_states(JOB_STATE_UNSPECIFIED);
  if (s.me) {
    req.add_users(std::to_string(my_uid));  // ANDed with -u here
  } else {
    for (uint32_t uid : s.uids) req.add_users(std::to_string(uid));
  }
  for (const std::string& v : s.names) req.add_names(v);
  for (const std::string& v : s.partitions) req.add_partitions(v);
  for (const std::string& v : s.accounts) req.add_accounts(v);
  for (const std::string& v : s.qos) req.add_qos(v);
  for (const std::string& v : s.nodes) req.add_nodes(v);
  return req;
}

int Show(const SqueueOptions& s, const std::vector<FormatField>& fields, CliEnv& env) {
  Expected<ClientApiInterface*> api = env.connect();
  GetJobsRequest req = Query(s, fields, env.uid);
  Expected<GetJobsReply> rep =
      api.ok() ? (*api)->GetJobs(req) : Expected<GetJobsReply>(api.status());
  bool single_missing = rep.ok() && s.jobs.size() == 1 &&
                        std::none_of(rep->jobs().begin(), rep->jobs().end(), [&](const JobInfo& j) {
                          return SelectorMatches(s.jobs[0], j);
                        });
  if (!rep.ok() || single_missing) {
    std::string msg = rep.ok() ? "Invalid job id specified" : rep.status().message();
    *env.err << "slurm_load_jobs error: " << msg << "\n";
    return 1;
  }
  int64_t now = rep->now() > 0 ? rep->now() : env.clock->Now();
  std::vector<JobInfo*> jobs;  // into the reply: sorted and printed without copies
  jobs.reserve(rep->jobs_size());
  for (JobInfo& j : *rep->mutable_jobs()) {
    if (Matches(j, s, env.uid)) jobs.push_back(&j);
  }
  if (s.json) {  // one entry per job (array tasks too), in id order
    std::vector<JobInfo> all;
    all.reserve(jobs.size());
    for (JobInfo* j : jobs) all.push_back(std::move(*j));
    std::sort(all.begin(), all.end(),
              [](const JobInfo& a, const JobInfo& b) { return a.job_id() < b.job_id(); });
    *env.out << FormatSqueueJson(all, LoadOwnConfig(env).cluster_name);
    return 0;
  }
  if (!s.array) CompressPendingTasks(&jobs);
  s.start ? SortJobsByStart(&jobs) : SortJobsDefault(&jobs);
  if (s.long_format) *env.out << LongDateLine(now) << "\n";
  *env.out << SqueueFormat(fields, jobs, now, s.header);
  return 0;
}

}  // namespace

int RunSqueue(const std::vector<std::string>& args, CliEnv& env) {
  ParseSettings settings;
  settings.optional_takes_next_word = {kJobs, kSteps};
  Expected<ParsedArgs> parsed = ParseCommandLine("squeue", args, Defs(), settings);
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"squeue --help\" for more information\n";
    return 1;
  }
  SqueueOptions s;
  for (const ParsedOption& o : parsed->options) {
    Status st = ApplyOption(o, &s, env);
    if (!st.ok()) return Fail(env, st);
  }
  for (const std::string& p : parsed->positionals) {
    *env.err << "squeue: error: Unrecognized option: " << p << "\n";
    *env.err << "Try \"squeue --help\" for more information\n";
    return 1;
  }
  if (s.help || s.usage) {
    *env.out << HelpText("squeue", s.usage ? HelpKind::kUsage : HelpKind::kHelp);
    return 0;
  }
  if (s.version) {
    *env.out << "slurm " << kSlurmVersion << "\n";
    return 0;
  }
  if (s.steps) {
    StepListOptions so;
    so.header = s.header;
    so.format = s.format;
    so.format_long = s.format_long;
    if (Status st = ParseStepList(s.step_list, &so.steps); !st.ok()) return Fail(env, st);
    for (const JobSelector& sel : s.jobs) so.jobs.insert(sel.id);
    so.uids = s.uids;
    if (s.me) so.uids.insert(env.uid);
    so.partitions = s.partitions;
    return ShowSqueueSteps(so, env);
  }
  Expected<std::vector<FormatField>> fields =
      s.json ? std::vector<FormatField>{} : ChooseFormat(s, env);  // --json prints every field
  if (!fields.ok()) return Fail(env, fields.status());
  return Show(s, *fields, env);
}

}  // namespace sluice
