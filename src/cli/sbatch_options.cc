#include "cli/sbatch_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "cli/time_spec.h"
#include "common/array_spec.h"
#include "common/rlimits.h"
#include "common/signal_spec.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

enum Opt {
  kAccount = 1,
  kCpusPerTask,
  kConstraint,
  kChdir,
  kError,
  kGpus,
  kHold,
  kHelp,
  kInput,
  kJobName,
  kNtasks,
  kNodes,
  kOutput,
  kPartition,
  kQos,
  kQuiet,
  kTime,
  kUsage,
  kVerbose,
  kVersion,
  kNodelist,
  kWait,
  kExclude,
  kNtasksPerNode,
  kMem,
  kMemPerCpu,
  kMemPerGpu,
  kGres,
  kGpusPerNode,
  kGpusPerTask,
  kExport,
  kParsable,
  kWrap,
  kRequeue,
  kNoRequeue,
  kSignal,
  kExclusive,
  kComment,
  kTestOnly,
  kOpenMode,
  kArray,
  kDependency,
  kKillOnInvalidDep,
  kIgnored,
  kUnsupported,
  kNice,
  kReservation,
  kSwitches,
  kCpusPerGpu,
  kTmp,
  kBegin,
  kMinCpus,
  kOvercommit,
  kPropagate,
};

struct Unsupported {
  const char* long_name;
  char short_name;
  ArgKind arg;
};

// Options later issues implement: parsed so they fail clearly, not as "unrecognized".
constexpr Unsupported kUnsupportedOpts[] = {
    {"deadline", 0, ArgKind::kRequired},
    {"priority", 0, ArgKind::kRequired},
    {"licenses", 'L', ArgKind::kRequired},
    {"bb", 0, ArgKind::kRequired},
    {"bbf", 0, ArgKind::kRequired},
    {"container", 0, ArgKind::kRequired},
    {"gpu-bind", 0, ArgKind::kRequired},
    {"gpu-freq", 0, ArgKind::kRequired},
    {"ntasks-per-gpu", 0, ArgKind::kRequired},
    {"ntasks-per-socket", 0, ArgKind::kRequired},
    {"ntasks-per-core", 0, ArgKind::kRequired},
    {"sockets-per-node", 0, ArgKind::kRequired},
    {"cores-per-socket", 0, ArgKind::kRequired},
    {"threads-per-core", 0, ArgKind::kRequired},
    {"extra-node-info", 'B', ArgKind::kRequired},
    {"core-spec", 'S', ArgKind::kRequired},
    {"thread-spec", 0, ArgKind::kRequired},
    {"prefer", 0, ArgKind::kRequired},
    {"batch", 0, ArgKind::kRequired},
    {"delay-boot", 0, ArgKind::kRequired},
    {"spread-job", 0, ArgKind::kNone},
    {"use-min-nodes", 0, ArgKind::kNone},
    {"oversubscribe", 's', ArgKind::kNone},
    {"contiguous", 0, ArgKind::kNone},
    {"mcs-label", 0, ArgKind::kRequired},
    {"power", 0, ArgKind::kRequired},
    {"reboot", 0, ArgKind::kNone},
    {"network", 0, ArgKind::kRequired},
    {"time-min", 0, ArgKind::kRequired},
    {"tres-per-task", 0, ArgKind::kRequired},
    {"mem-bind", 0, ArgKind::kRequired},
    {"nodefile", 'F', ArgKind::kRequired},
    {"export-file", 0, ArgKind::kRequired},
    {"uid", 0, ArgKind::kRequired},
    {"gid", 0, ArgKind::kRequired},
    {"cluster-constraint", 0, ArgKind::kRequired},
    {"burst-buffer", 0, ArgKind::kRequired},
    {"ignore-pbs", 0, ArgKind::kNone},
};

// Accepted and ignored: they change nothing a Sluice job can observe yet.
constexpr Unsupported kIgnoredOpts[] = {
    {"mail-type", 0, ArgKind::kRequired},      {"mail-user", 0, ArgKind::kRequired},
    {"wckey", 0, ArgKind::kRequired},          {"clusters", 'M', ArgKind::kRequired},
    {"cluster", 0, ArgKind::kRequired},        {"hint", 0, ArgKind::kRequired},
    {"distribution", 'm', ArgKind::kRequired}, {"wait-all-nodes", 0, ArgKind::kRequired},
    {"acctg-freq", 0, ArgKind::kRequired},     {"profile", 0, ArgKind::kRequired},
    {"cpu-freq", 0, ArgKind::kRequired},       {"get-user-env", 0, ArgKind::kOptional},
    {"no-kill", 'k', ArgKind::kOptional},
};

std::vector<OptionDef> BuildDefs() {
  std::vector<OptionDef> d = {
      {"account", 'A', ArgKind::kRequired, kAccount},
      {"cpus-per-task", 'c', ArgKind::kRequired, kCpusPerTask},
      {"constraint", 'C', ArgKind::kRequired, kConstraint},
      {"chdir", 'D', ArgKind::kRequired, kChdir},
      {"workdir", 0, ArgKind::kRequired, kChdir},
      {"error", 'e', ArgKind::kRequired, kError},
      {"gpus", 'G', ArgKind::kRequired, kGpus},
      {"hold", 'H', ArgKind::kNone, kHold},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"input", 'i', ArgKind::kRequired, kInput},
      {"job-name", 'J', ArgKind::kRequired, kJobName},
      {"ntasks", 'n', ArgKind::kRequired, kNtasks},
      {"nodes", 'N', ArgKind::kRequired, kNodes},
      {"output", 'o', ArgKind::kRequired, kOutput},
      {"partition", 'p', ArgKind::kRequired, kPartition},
      {"qos", 'q', ArgKind::kRequired, kQos},
      {"quiet", 'Q', ArgKind::kNone, kQuiet},
      {"time", 't', ArgKind::kRequired, kTime},
      {"usage", 'u', ArgKind::kNone, kUsage},
      {"verbose", 'v', ArgKind::kNone, kVerbose},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"nodelist", 'w', ArgKind::kRequired, kNodelist},
      {"wait", 'W', ArgKind::kNone, kWait},
      {"exclude", 'x', ArgKind::kRequired, kExclude},
      {"ntasks-per-node", 0, ArgKind::kRequired, kNtasksPerNode},
      {"tasks-per-node", 0, ArgKind::kRequired, kNtasksPerNode},
      {"mem", 0, ArgKind::kRequired, kMem},
      {"mem-per-cpu", 0, ArgKind::kRequired, kMemPerCpu},
      {"mem-per-gpu", 0, ArgKind::kRequired, kMemPerGpu},
      {"tmp", 0, ArgKind::kRequired, kTmp},
      {"mincpus", 0, ArgKind::kRequired, kMinCpus},
      {"overcommit", 'O', ArgKind::kNone, kOvercommit},
      {"gres", 0, ArgKind::kRequired, kGres},
      {"gpus-per-node", 0, ArgKind::kRequired, kGpusPerNode},
      {"gpus-per-task", 0, ArgKind::kRequired, kGpusPerTask},
      {"export", 0, ArgKind::kRequired, kExport},
      {"parsable", 0, ArgKind::kOptional, kParsable},
      {"wrap", 0, ArgKind::kRequired, kWrap},
      {"requeue", 0, ArgKind::kNone, kRequeue},
      {"no-requeue", 0, ArgKind::kNone, kNoRequeue},
      {"signal", 0, ArgKind::kRequired, kSignal},
      {"exclusive", 0, ArgKind::kOptional, kExclusive},
      {"comment", 0, ArgKind::kRequired, kComment},
      {"test-only", 0, ArgKind::kNone, kTestOnly},
      {"open-mode", 0, ArgKind::kRequired, kOpenMode},
      {"array", 'a', ArgKind::kRequired, kArray},
      {"dependency", 'd', ArgKind::kRequired, kDependency},
      {"kill-on-invalid-dep", 0, ArgKind::kRequired, kKillOnInvalidDep},
      {"nice", 0, ArgKind::kOptional, kNice},
      {"begin", 'b', ArgKind::kRequired, kBegin},
      {"propagate", 0, ArgKind::kOptional, kPropagate},
      {"reservation", 0, ArgKind::kRequired, kReservation},
      {"switches", 0, ArgKind::kRequired, kSwitches},
      {"cpus-per-gpu", 0, ArgKind::kRequired, kCpusPerGpu},
  };
  for (const auto& u : kUnsupportedOpts)
    d.push_back({u.long_name, u.short_name, u.arg, kUnsupported});
  for (const auto& u : kIgnoredOpts) d.push_back({u.long_name, u.short_name, u.arg, kIgnored});
  return d;
}

Expected<int32_t> PositiveInt(const std::string& s, const std::string& what) {
  int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v <= 0)
    return InvalidArgument("Invalid numeric value \"" + s + "\" for " + what + ".");
  return v;
}

// --mem (kind 1; 0 = all the memory of each node), --mem-per-cpu (2), --mem-per-gpu (4).
Status SetMem(const ParsedOption& opt, SbatchOptions* o, int kind) {
  static constexpr const char* kNames[] = {"", "--mem", "--mem-per-cpu", "", "--mem-per-gpu"};
  Expected<int64_t> mb = ParseMemoryMb(opt.value);
  if (!mb.ok()) return InvalidArgument(std::string("Invalid ") + kNames[kind] + " specification");
  if (o->mem_kinds_this_source & ~kind)
    return InvalidArgument("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  o->mem_kinds_this_source |= kind;
  JobSpec& s = o->spec;
  s.set_mem_per_node_mb(kind == 1 ? *mb : 0);
  s.set_mem_per_cpu_mb(kind == 2 ? *mb : 0);
  s.set_mem_per_gpu_mb(kind == 4 ? *mb : 0);
  s.set_mem_whole_node(kind == 1 && *mb == 0);
  return Status::Ok();
}

Status SetGres(const std::string& value, JobSpec* s) {
  Expected<std::vector<GresSpec>> gres = ParseGres(value);
  if (!gres.ok()) return InvalidArgument("Invalid --gres specification");
  s->clear_gres_per_node();
  for (const GresSpec& g : *gres) {
    GresRequest* r = s->add_gres_per_node();
    r->set_name(g.name);
    r->set_type(g.type);
    r->set_count(g.count);
  }
  return Status::Ok();
}

Status SetGpusPerNode(const std::string& value, JobSpec* s) {
  Expected<GresSpec> g = ParseGpuCount(value);
  if (!g.ok()) return InvalidArgument("Invalid --gpus-per-node specification");
  auto* list = s->mutable_gres_per_node();
  list->erase(std::remove_if(list->begin(), list->end(),
                             [](const GresRequest& r) { return r.name() == "gpu"; }),
              list->end());
  GresRequest* r = s->add_gres_per_node();
  r->set_name("gpu");
  r->set_type(g->type);
  r->set_count(g->count);
  return Status::Ok();
}

Status SetGpuCount(const ParsedOption& opt, JobSpec* s, bool per_task) {
  Expected<GresSpec> g = ParseGpuCount(opt.value);
  if (!g.ok()) return InvalidArgument("Invalid " + opt.spelled + " specification");
  if (per_task) {
    s->set_gpus_per_task(g->count);
  } else {
    s->set_gpus_total(g->count);
  }
  if (!g->type.empty()) s->set_gpu_type(g->type);
  return Status::Ok();
}

Status ApplyResourceOption(const ParsedOption& opt, SbatchOptions* o) {
  JobSpec& s = o->spec;
  switch (opt.id) {
    case kNodes: {
      int32_t mn = 0, mx = 0;
      RETURN_IF_ERROR(ParseNodeCount(opt.value, &mn, &mx));
      s.set_min_nodes(mn);
      s.set_max_nodes(mx);
      return Status::Ok();
    }
    case kNtasks: {
      ASSIGN_OR_RETURN(int32_t v, PositiveInt(opt.value, "--ntasks"));
      s.set_ntasks(v);
      s.set_ntasks_set(true);
      return Status::Ok();
    }
    case kNtasksPerNode: {
      ASSIGN_OR_RETURN(int32_t v, PositiveInt(opt.value, "--ntasks-per-node"));
      s.set_ntasks_per_node(v);
      return Status::Ok();
    }
    case kCpusPerTask: {
      ASSIGN_OR_RETURN(int32_t v, PositiveInt(opt.value, "--cpus-per-task"));
      s.set_cpus_per_task(v);
      return Status::Ok();
    }
    case kMem:
      return SetMem(opt, o, 1);
    case kMemPerCpu:
      return SetMem(opt, o, 2);
    case kMemPerGpu:
      return SetMem(opt, o, 4);
    case kTmp: {
      Expected<int64_t> mb = ParseMemoryMb(opt.value);
      if (!mb.ok()) return InvalidArgument("Invalid --tmp specification");
      s.set_tmp_disk_mb(*mb);
      return Status::Ok();
    }
    case kOvercommit:
      s.set_overcommit(true);
      return Status::Ok();
    case kMinCpus: {
      ASSIGN_OR_RETURN(int32_t n, PositiveInt(opt.value, "--mincpus"));
      s.set_min_cpus_per_node(n);
      return Status::Ok();
    }
    case kGres:
      return SetGres(opt.value, &s);
    case kGpusPerNode:
      return SetGpusPerNode(opt.value, &s);
    case kGpus:
      return SetGpuCount(opt, &s, false);
    case kGpusPerTask:
      return SetGpuCount(opt, &s, true);
    case kTime: {
      Expected<int64_t> t = ParseTimeLimitMinutes(opt.value);
      if (!t.ok()) return InvalidArgument("Invalid --time specification");
      s.set_time_limit_min(*t);
      return Status::Ok();
    }
  }
  return InvalidArgument("internal: unhandled option " + opt.spelled);
}

Status ApplyFlagOption(const ParsedOption& opt, SbatchOptions* o) {
  JobSpec& s = o->spec;
  switch (opt.id) {
    case kHold:
      s.set_hold(true);
      break;
    case kHelp:
      o->help = true;
      break;
    case kUsage:
      o->usage = true;
      break;
    case kVersion:
      o->version = true;
      break;
    case kVerbose:
      ++o->verbose;
      break;
    case kQuiet:
      o->quiet = true;
      break;
    case kWait:
      o->wait = true;
      break;
    case kParsable:
      o->parsable = true;
      break;
    case kRequeue:
      s.set_requeue(1);
      break;
    case kNoRequeue:
      s.set_requeue(2);
      break;
    case kExclusive:
      s.set_exclusive(true);
      break;
    case kTestOnly:
      o->test_only = true;
      break;
    case kIgnored:
      break;
    case kCpusPerGpu: {
      ASSIGN_OR_RETURN(int32_t v, PositiveInt(opt.value, "--cpus-per-gpu"));
      s.set_cpus_per_gpu(v);
      return Status::Ok();
    }
    case kSwitches: {  // --switches=<count>[@<max-time>]
      const size_t at = opt.value.find('@');
      auto count = PositiveInt(opt.value.substr(0, at), "--switches");
      if (!count.ok()) return count.status();
      s.set_max_switches(*count);
      if (at == std::string::npos) return Status::Ok();
      auto wait = ParseTimeLimitMinutes(opt.value.substr(at + 1));
      if (!wait.ok() || *wait < 0)
        return InvalidArgument("Invalid --switches max-time: " + opt.value.substr(at + 1));
      s.set_switches_wait_s(*wait * 60);
      return Status::Ok();
    }
    case kNice: {  // --nice[=adjustment], default 100; negative needs privilege (ctld checks)
      if (!opt.has_value) return (s.set_nice(100), Status::Ok());
      char* end = nullptr;
      long long n = std::strtoll(opt.value.c_str(), &end, 10);
      if (opt.value.empty() || *end != '\0' || n < -2147483645LL || n > 2147483645LL) {
        return InvalidArgument("Invalid nice value, must be between -2147483645 and 2147483645");
      }
      s.set_nice(n);
      break;
    }
    case kPropagate:
      o->propagate = opt.has_value ? opt.value : "ALL";
      RETURN_IF_ERROR(ParsePropagate(o->propagate).status());
      break;
    case kBegin:  // resolved against the clock when the job is built (BuildSpec)
      if (!ParseBeginTime(opt.value, 0).ok())
        return InvalidArgument("Invalid time specification " + opt.value);
      o->begin = opt.value;
      break;
    case kUnsupported:
      return FailedPrecondition(LongOptionName(opt, SbatchOptionDefs()) + " is not supported yet");
    default:
      return ApplyResourceOption(opt, o);
  }
  return Status::Ok();
}

}  // namespace

const std::vector<OptionDef>& SbatchOptionDefs() {
  static const std::vector<OptionDef>* defs = new std::vector<OptionDef>(BuildDefs());
  return *defs;
}

Status ParseNodeCount(const std::string& s, int32_t* min, int32_t* max) {
  Status bad = InvalidArgument("invalid node count `" + s + "'");
  size_t dash = s.find('-');
  std::string a = s.substr(0, dash);
  std::string b = dash == std::string::npos ? "" : s.substr(dash + 1);
  auto parse = [](const std::string& t, int32_t* v) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
    return ec == std::errc() && p == t.data() + t.size() && *v > 0;
  };
  if (a.empty() && dash == 0) {
    *min = 1;  // "-N-3": at most 3 (Slurm reads the missing minimum as one)
  } else if (!parse(a, min)) {
    return bad;
  }
  *max = 0;
  if (dash != std::string::npos && (!parse(b, max) || *max < *min)) return bad;
  return Status::Ok();
}

Status ValidateSignalSpec(const std::string& s) { return ParseSignalSpec(s).status(); }

// --array: the syntax is checked here without expanding a range; an id above every
// MaxArraySize Slurm allows is refused here as the controller would refuse it (the
// controller enforces the configured MaxArraySize). --dependency (checked by the
// controller), --kill-on-invalid-dep=yes|no.
static Status CheckArrayOption(const std::string& v) {
  auto ranges = ParseArrayRanges(v, INT64_MAX);
  if (!ranges.ok()) return InvalidArgument("Invalid --array specification");
  if (ranges->max_id >= kMaxArraySizeCeiling) {
    return FailedPrecondition(std::string("Batch job submission failed: ") + kMsgInvalidArray);
  }
  return Status::Ok();
}

static Status ApplyArrayDepOption(const ParsedOption& opt, SbatchOptions* o) {
  JobSpec& s = o->spec;
  const std::string& v = opt.value;
  switch (opt.id) {
    case kArray:
      RETURN_IF_ERROR(CheckArrayOption(v));
      s.set_array_spec(v);
      break;
    case kDependency:
      s.set_dependency(v);
      break;
    case kKillOnInvalidDep:
      if (v != "yes" && v != "no")
        return InvalidArgument("Invalid --kill-on-invalid-dep specification");
      s.set_kill_on_invalid_dep(v == "yes" ? 1 : 2);
      break;
    default:
      return ApplyFlagOption(opt, o);
  }
  return Status::Ok();
}

Status ApplySbatchOption(const ParsedOption& opt, SbatchOptions* o) {
  JobSpec& s = o->spec;
  const std::string& v = opt.value;
  switch (opt.id) {
    case kAccount:
      s.set_account(v);
      break;
    case kConstraint:
      s.set_constraint(v);
      break;
    case kChdir:
      o->chdir = v;
      break;
    case kError:
      s.set_stderr_pattern(v);
      break;
    case kInput:
      s.set_stdin_path(v);
      break;
    case kJobName:
      s.set_name(v);
      break;
    case kOutput:
      s.set_stdout_pattern(v);
      break;
    case kPartition:
      s.set_partition(v);
      break;
    case kQos:
      s.set_qos(v);
      break;
    case kNodelist:
      s.set_nodelist(v);
      break;
    case kExclude:
      s.set_exclude(v);
      break;
    case kComment:
      s.set_comment(v);
      break;
    case kReservation:
      s.set_reservation(v);
      break;
    case kExport:
      o->export_spec = v;
      break;
    case kWrap:
      o->has_wrap = true;
      o->wrap = v;
      break;
    case kSignal:
      RETURN_IF_ERROR(ValidateSignalSpec(v));
      s.set_signal(v);
      break;
    case kOpenMode:
      if (v != "append" && v != "truncate" && v != "a" && v != "t")
        return InvalidArgument("Invalid --open-mode argument: " + v);
      s.set_open_mode(v[0] == 'a' ? "append" : "truncate");
      break;
    default:
      return ApplyArrayDepOption(opt, o);
  }
  return Status::Ok();
}

google::protobuf::RepeatedPtrField<ResourceLimit> PropagatedLimits(const SbatchOptions& o) {
  google::protobuf::RepeatedPtrField<ResourceLimit> out;
  Expected<std::vector<int>> which = ParsePropagate(o.propagate);  // checked when parsed
  for (const ResourceLimitValue& v : CurrentLimits(which.ok() ? *which : std::vector<int>{})) {
    ResourceLimit* l = out.Add();
    l->set_resource(v.resource);
    l->set_soft(v.soft);
  }
  return out;
}

Status ApplySbatchOptions(const std::vector<ParsedOption>& opts, SbatchOptions* o) {
  o->mem_kinds_this_source = 0;
  for (const ParsedOption& opt : opts) RETURN_IF_ERROR(ApplySbatchOption(opt, o));
  o->mem_kinds_this_source = 0;
  return Status::Ok();
}

std::vector<ParsedOption> SbatchEnvOptions(const std::map<std::string, std::string>& env) {
  static const std::pair<const char*, int> kVars[] = {
      {"SBATCH_ACCOUNT", kAccount},
      {"SBATCH_PARTITION", kPartition},
      {"SBATCH_QOS", kQos},
      {"SBATCH_TIMELIMIT", kTime},
      {"SBATCH_JOB_NAME", kJobName},
      {"SBATCH_EXPORT", kExport},
      {"SBATCH_CONSTRAINT", kConstraint},
      {"SBATCH_GRES", kGres},
      {"SBATCH_GPUS", kGpus},
      {"SBATCH_GPUS_PER_NODE", kGpusPerNode},
      {"SBATCH_GPUS_PER_TASK", kGpusPerTask},
      {"SBATCH_MEM_PER_CPU", kMemPerCpu},
      {"SBATCH_MEM_PER_GPU", kMemPerGpu},
      {"SBATCH_MEM_PER_NODE", kMem},
      {"SBATCH_SIGNAL", kSignal},
      {"SBATCH_OPEN_MODE", kOpenMode},
      {"SBATCH_ARRAY_INX", kArray},
      {"SBATCH_OUTPUT", kOutput},
      {"SBATCH_ERROR", kError},
      {"SBATCH_INPUT", kInput},
  };
  std::vector<ParsedOption> out;
  for (const auto& [name, id] : kVars) {
    auto it = env.find(name);
    if (it != env.end() && !it->second.empty())
      out.push_back({id, it->second, true, std::string("$") + name});
  }
  static const std::pair<const char*, int> kFlags[] = {
      {"SBATCH_EXCLUSIVE", kExclusive},
      {"SBATCH_REQUEUE", kRequeue},
      {"SBATCH_NO_REQUEUE", kNoRequeue},
      {"SBATCH_WAIT", kWait},
      {"SBATCH_HOLD", kHold},
  };
  for (const auto& [name, id] : kFlags)
    if (env.count(name)) out.push_back({id, "", false, std::string("$") + name});
  return out;
}

Expected<std::vector<std::string>> ResolveExport(const std::string& spec,
                                                 const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  bool all = false;
  std::vector<std::string> items;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    items.push_back(spec.substr(pos, comma - pos));
    pos = comma + 1;
  }
  if (spec.empty()) items = {"ALL"};
  for (const std::string& it : items) {
    std::string up = it;
    std::transform(up.begin(), up.end(), up.begin(), ::toupper);
    if (up == "ALL") all = true;
  }
  for (const auto& [k, v] : env)
    if (all || k.rfind("SLURM_", 0) == 0) out[k] = v;
  for (const std::string& it : items) {
    std::string up = it;
    std::transform(up.begin(), up.end(), up.begin(), ::toupper);
    if (up == "ALL" || up == "NONE" || it.empty()) continue;
    size_t eq = it.find('=');
    if (eq == 0) return InvalidArgument("Invalid --export specification: " + spec);
    if (eq != std::string::npos) {
      out[it.substr(0, eq)] = it.substr(eq + 1);
    } else if (env.count(it)) {
      out[it] = env.at(it);
    }
  }
  std::vector<std::string> result;
  for (const auto& [k, v] : out) result.push_back(k + "=" + v);
  return result;
}

std::string DefaultJobName(const std::string& script_path, bool wrap) {
  if (wrap) return "wrap";
  if (script_path.empty()) return "sbatch";
  size_t slash = script_path.find_last_of('/');
  return slash == std::string::npos ? script_path : script_path.substr(slash + 1);
}

}  // namespace sluice
