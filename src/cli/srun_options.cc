#include "cli/srun_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace sluice {
namespace {

enum SrunOpt {
  kLabel = 1000,
  kUnbuffered,
  kKillOnBadExit,
  kWaitSecs,
  kDistribution,
  kMpi,
  kJobId,
  kAccepted,
  kRejected,
  kNotYet,
  kExact,
  kOverlap,
  kCpuBind,
  kGpuBind,
  kOutput,
  kError,
  kInput,
  kImmediate,
  kMultiProg,
  kTaskProlog,
  kTaskEpilog,
  kQuitOnInterrupt,
  kThreads,
  kHetGroup,
};

// sbatch options srun/salloc do not have, or whose letters srun uses differently.
const std::set<std::string> kDropped = {
    "wrap",   "parsable", "test-only", "requeue",      "no-requeue", "wait",
    "output", "error",    "input",     "distribution", "batch",
};

std::vector<OptionDef> BuildDefs() {
  std::vector<OptionDef> d;
  for (OptionDef o : SbatchOptionDefs()) {
    if (o.long_name && kDropped.count(o.long_name)) continue;
    if (o.short_name == 'u') o.short_name = 0;  // --usage; -u is --unbuffered
    d.push_back(o);
  }
  std::vector<OptionDef> mine = {
      {"label", 'l', ArgKind::kNone, kLabel},
      {"unbuffered", 'u', ArgKind::kNone, kUnbuffered},
      {"kill-on-bad-exit", 'K', ArgKind::kOptional, kKillOnBadExit},
      {"wait", 'W', ArgKind::kRequired, kWaitSecs},
      {"distribution", 'm', ArgKind::kRequired, kDistribution},
      {"mpi", 0, ArgKind::kRequired, kMpi},
      {"jobid", 0, ArgKind::kRequired, kJobId},
      {"overlap", 0, ArgKind::kNone, kOverlap},
      {"exact", 0, ArgKind::kNone, kExact},
      {"cpu-bind", 0, ArgKind::kRequired, kCpuBind},
      {"cpu_bind", 0, ArgKind::kRequired, kCpuBind},
      {"gpu-bind", 0, ArgKind::kRequired, kGpuBind},
      {"whole", 0, ArgKind::kNone, kAccepted},
      {"immediate", 'I', ArgKind::kOptional, kImmediate},
      {"multi-prog", 0, ArgKind::kNone, kMultiProg},
      {"quit-on-interrupt", 0, ArgKind::kNone, kQuitOnInterrupt},
      {"threads", 'T', ArgKind::kRequired, kThreads},
      {"task-prolog", 0, ArgKind::kRequired, kTaskProlog},
      {"task-epilog", 0, ArgKind::kRequired, kTaskEpilog},
      {"container-image", 0, ArgKind::kRequired, kRejected},
      {"container-mounts", 0, ArgKind::kRequired, kRejected},
      {"container-workdir", 0, ArgKind::kRequired, kRejected},
      {"container-name", 0, ArgKind::kRequired, kRejected},
      {"output", 'o', ArgKind::kRequired, kOutput},
      {"error", 'e', ArgKind::kRequired, kError},
      {"input", 'i', ArgKind::kRequired, kInput},
      {"pty", 0, ArgKind::kNone, kNotYet},
      {"het-group", 0, ArgKind::kRequired, kHetGroup},
  };
  // sbatch lists --gpu-bind as "later": srun accepts it.
  std::erase_if(
      d, [](const OptionDef& o) { return o.long_name && std::string(o.long_name) == "gpu-bind"; });
  d.insert(d.end(), mine.begin(), mine.end());
  return d;
}

const std::vector<OptionDef>& SrunDefs() {
  static const std::vector<OptionDef> defs = BuildDefs();
  return defs;
}

Expected<int> NonNegative(const std::string& v, const std::string& what) {
  int out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < 0) {
    return InvalidArgument("Invalid " + what + " value: " + v);
  }
  return out;
}

std::vector<std::string> SplitComma(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    // map_cpu:0,1 / map_gpu:0,1 lists keep their commas
    std::string part =
        v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!out.empty() && !part.empty() && std::isdigit(static_cast<unsigned char>(part[0])) &&
        (out.back().rfind("map_", 0) == 0)) {
      out.back() += "," + part;
    } else {
      out.push_back(part);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool IsIdList(const std::string& v) {
  if (v.empty()) return false;
  for (char c : v) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != ',') return false;
  }
  return true;
}

// --cpu-bind=[{quiet,verbose},]{none,cores,threads,sockets,map_cpu:<list>,mask_cpu:<list>}
Status CheckCpuBind(const std::string& v) {
  std::string bad = "Invalid --cpu-bind argument: " + v;
  for (const std::string& part : SplitComma(v)) {
    if (part == "q" || part == "quiet" || part == "v" || part == "verbose" || part == "none" ||
        part == "no" || part == "cores" || part == "threads" || part == "sockets" ||
        part == "rank" || part == "ldoms") {
      continue;
    }
    if (part.rfind("map_cpu:", 0) == 0 && IsIdList(part.substr(8))) continue;
    return InvalidArgument(bad);
  }
  return Status::Ok();
}

// --gpu-bind=[verbose,]{none,closest,single:<n>,map_gpu:<list>}
Status CheckGpuBind(const std::string& v) {
  for (const std::string& part : SplitComma(v)) {
    if (part == "verbose" || part == "none" || part == "closest") continue;
    if (part.rfind("single:", 0) == 0 && IsIdList(part.substr(7)) &&
        part.find(',') == std::string::npos)
      continue;
    if (part.rfind("map_gpu:", 0) == 0 && IsIdList(part.substr(8))) continue;
    return InvalidArgument("Invalid --gpu-bind argument: " + v);
  }
  return Status::Ok();
}

Status ApplySrunOption(const std::string& prog, const ParsedOption& opt, SrunOptions* o) {
  switch (opt.id) {
    case kLabel:
      o->label = true;
      return Status::Ok();
    case kUnbuffered:
      o->unbuffered = true;
      return Status::Ok();
    case kKillOnBadExit: {
      if (!opt.has_value) {
        o->kill_on_bad_exit = 1;
        return Status::Ok();
      }
      ASSIGN_OR_RETURN(o->kill_on_bad_exit, NonNegative(opt.value, "--kill-on-bad-exit"));
      return Status::Ok();
    }
    case kWaitSecs: {
      ASSIGN_OR_RETURN(o->wait_s, NonNegative(opt.value, "--wait"));
      return Status::Ok();
    }
    case kDistribution: {
      std::string kind = opt.value.substr(0, opt.value.find_first_of(":,"));
      if (kind != "block" && kind != "cyclic" && kind != "*") {
        return InvalidArgument("invalid distribution `" + opt.value + "'");
      }
      o->distribution = kind == "*" ? "block" : kind;
      return Status::Ok();
    }
    case kMpi:
      if (opt.value == "none" || opt.value == "pmi2" || opt.value == "list") return Status::Ok();
      return FailedPrecondition("MPI plugin '" + opt.value + "' is not supported (use --mpi=none)");
    case kJobId: {
      ASSIGN_OR_RETURN(int id, NonNegative(opt.value, "--jobid"));
      o->jobid = id;
      return Status::Ok();
    }
    case kImmediate: {
      if (!opt.has_value) {
        o->immediate_s = 1;
        return Status::Ok();
      }
      ASSIGN_OR_RETURN(o->immediate_s, NonNegative(opt.value, "--immediate"));
      return Status::Ok();
    }
    case kMultiProg:
      o->multi_prog = true;
      return Status::Ok();
    case kQuitOnInterrupt:
      o->quit_on_interrupt = true;
      return Status::Ok();
    case kHetGroup: {
      if (opt.value.find_first_of(",-") != std::string::npos) {
        return FailedPrecondition("--het-group=" + opt.value +
                                  ": a step in several components is not supported yet");
      }
      ASSIGN_OR_RETURN(o->het_group, NonNegative(opt.value, "--het-group"));
      return Status::Ok();
    }
    case kThreads:  // Slurm's launch fan-out threads; Sluice's launch does not use them
      return NonNegative(opt.value, "--threads").status();
    case kTaskProlog:
      o->task_prolog = opt.value;
      return Status::Ok();
    case kTaskEpilog:
      o->task_epilog = opt.value;
      return Status::Ok();
    case kAccepted:
      return Status::Ok();
    case kExact:
      o->exact = true;
      return Status::Ok();
    case kOverlap:
      o->overlap = true;
      return Status::Ok();
    case kCpuBind:
      RETURN_IF_ERROR(CheckCpuBind(opt.value));
      o->cpu_bind = opt.value;
      return Status::Ok();
    case kGpuBind:
      RETURN_IF_ERROR(CheckGpuBind(opt.value));
      o->gpu_bind = opt.value;
      return Status::Ok();
    case kOutput:
      o->output = opt.value;
      return Status::Ok();
    case kError:
      o->error = opt.value;
      return Status::Ok();
    case kInput:
      o->input = opt.value;
      return Status::Ok();
    case kRejected:
      return FailedPrecondition(opt.spelled + ": containers are not supported by this cluster");
    case kNotYet:
      return FailedPrecondition(opt.spelled + " is not supported by " + prog + " yet");
    default:
      break;
  }
  if (opt.id == 0) return Status::Ok();
  Status st = ApplySbatchOption(opt, &o->alloc);
  return st;
}

}  // namespace

std::vector<std::string> SrunEnvArgs(const std::map<std::string, std::string>& env) {
  auto get = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  auto on = [&](const char* name) {
    const std::string v = get(name);
    return !v.empty() && v != "0" && v != "no" && v != "NO";
  };
  std::vector<std::string> args;
  const bool in_job = !get("SLURM_JOB_ID").empty();
  if (!in_job) {
    const std::string tasks =
        get("SLURM_NTASKS").empty() ? get("SLURM_NPROCS") : get("SLURM_NTASKS");
    if (!tasks.empty()) args.push_back("--ntasks=" + tasks);
    for (auto [var, opt] : {std::pair{"SLURM_NNODES", "--nodes="},
                            {"SLURM_PARTITION", "--partition="},
                            {"SLURM_ACCOUNT", "--account="},
                            {"SLURM_TIMELIMIT", "--time="}})
      if (!get(var).empty()) args.push_back(opt + get(var));
  }
  for (auto [var, opt] : {std::pair{"SLURM_STDOUTMODE", "--output="},
                          {"SLURM_STDERRMODE", "--error="},
                          {"SLURM_STDINMODE", "--input="},
                          {"SLURM_KILL_BAD_EXIT", "--kill-on-bad-exit="},
                          {"SLURM_WAIT", "--wait="}})
    if (!get(var).empty()) args.push_back(opt + get(var));
  if (on("SLURM_OVERCOMMIT")) args.push_back("--overcommit");
  if (on("SLURM_LABELIO")) args.push_back("--label");
  if (on("SLURM_UNBUFFEREDIO")) args.push_back("--unbuffered");
  const std::string debug = get("SLURM_DEBUG");
  if (!debug.empty() && debug.find_first_not_of("0123456789") == std::string::npos)
    for (int i = std::min(std::stoi(debug.substr(0, 2)), 9); i > 0; --i) args.push_back("-v");
  return args;
}

std::string DefinedOptionsReport(const std::string& prog, const SrunOptions& o) {
  const std::string p = prog + ": ";
  std::string out = p + "defined options\n" + p + "-------------------- --------------------\n";
  for (const auto& [name, value] : o.defined) {
    std::string padded = name;
    padded.resize(std::max<size_t>(20, name.size()), ' ');
    out += p + padded + ": " + value + "\n";
  }
  return out + p + "-------------------- --------------------\n" + p + "end of defined options\n";
}

Status ParseSrunArgs(const std::string& prog, const std::vector<std::string>& args,
                     SrunOptions* o) {
  ParseSettings settings;
  settings.stop_at_first_positional = true;
  Expected<ParsedArgs> cmdline = ParseCommandLine(prog, args, SrunDefs(), settings);
  if (!cmdline.ok()) {
    o->getopt_error = true;
    return cmdline.status();
  }
  for (const ParsedOption& opt : cmdline->options) {
    RETURN_IF_ERROR(ApplySrunOption(prog, opt, o));
    const std::string name = LongOptionName(opt, SrunDefs());
    o->defined[name.rfind("--", 0) == 0 ? name.substr(2) : name] =
        opt.has_value ? opt.value : "set";
  }
  if (o->alloc.verbose > 0) o->defined["verbose"] = std::to_string(o->alloc.verbose);
  const JobSpec& spec = o->alloc.spec;
  o->nodes_set = spec.min_nodes() > 0;
  o->ntasks_set = spec.ntasks_set();
  o->npn_set = spec.ntasks_per_node() > 0;
  o->command = cmdline->positionals;
  return Status::Ok();
}

}  // namespace sluice
