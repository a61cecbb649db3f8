// sbatch's options: the option table, applying parsed options onto SbatchOptions, the
// SBATCH_* input environment variables, --export resolution, and building the JobSpec.
// Precedence (lowest first): #SBATCH directives, SBATCH_* environment, command line;
// each later occurrence of an option replaces the earlier one.
//
// ApplySbatchOption errors:
//   kInvalidArgument    -> bad value; print "sbatch: error: <msg>", exit 255
//                          ("Invalid --time specification", "invalid node count `x'")
//   kFailedPrecondition -> an option a later issue implements; exit 1
//                          ("--reservation is not supported yet")
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/opt_parser.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice {

struct SbatchOptions {
  JobSpec spec;  // everything but script, argv, env, work_dir, submit_host, command
  bool parsable = false;
  bool test_only = false;
  bool wait = false;
  bool quiet = false;
  bool help = false;
  bool usage = false;
  bool version = false;
  int verbose = 0;
  std::string export_spec;  // --export as typed; empty = ALL
  bool has_wrap = false;
  std::string wrap;
  std::string chdir;      // -D as typed (resolved against cwd by BuildJobSpec)
  std::string begin;      // --begin as typed (cli/time_spec.h, resolved by BuildJobSpec)
  std::string propagate;  // --propagate as typed ("" = ALL, Slurm's default)
  // Memory options seen from the source being applied (--mem/--mem-per-cpu/-gpu are
  // mutually exclusive within one source; a later source replaces an earlier one).
  int mem_kinds_this_source = 0;
};

const std::vector<OptionDef>& SbatchOptionDefs();

Status ApplySbatchOption(const ParsedOption& opt, SbatchOptions* o);
Status ApplySbatchOptions(const std::vector<ParsedOption>& opts, SbatchOptions* o);

// SBATCH_ACCOUNT, SBATCH_PARTITION, SBATCH_TIMELIMIT, ... as options.
std::vector<ParsedOption> SbatchEnvOptions(const std::map<std::string, std::string>& env);

// --export: "ALL" (default, also ""), "NONE", or a list "A,B=x" / "ALL,B=x". Without ALL
// only SLURM_* variables and the listed ones are exported. Returns "KEY=VALUE" sorted.
Expected<std::vector<std::string>> ResolveExport(const std::string& spec,
                                                 const std::map<std::string, std::string>& env);

// Job name when -J is absent: script base name, "wrap" for --wrap, "sbatch" for stdin.
std::string DefaultJobName(const std::string& script_path, bool wrap);

// "N" or "N-M" -> min, max (max 0 when absent).
Status ParseNodeCount(const std::string& s, int32_t* min, int32_t* max);
// The soft limits of this process that --propagate (`o.propagate`) gives the job.
google::protobuf::RepeatedPtrField<ResourceLimit> PropagatedLimits(const SbatchOptions& o);

// --signal=[{R|B}:]SIG[@secs]
Status ValidateSignalSpec(const std::string& s);

}  // namespace sluice
