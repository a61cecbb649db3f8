// Options of srun and salloc: sbatch's resource options (applied with
// ApplySbatchOption onto an SbatchOptions, which also describes the allocation a
// standalone srun or salloc requests) plus the step options of srun. Options sbatch
// has but srun does not (--wrap, --parsable, --hold, ...) are not accepted.
//   SrunOptions o;
//   Status st = ParseSrunArgs("srun", args, &o);  // o.command = the program and its args
// Errors: kInvalidArgument with glibc's getopt line ("srun: unrecognized option '--x'")
// when `getopt_error` is set (exit 255 + "Try ..."), else a bad value (exit 1);
// kFailedPrecondition for recognised but unsupported options (containers, pty, -o).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/sbatch_options.h"
#include "common/status.h"

namespace sluice {

struct SrunOptions {
  SbatchOptions alloc;              // resources, name, partition, time, export, chdir
  std::vector<std::string> command;
  bool label = false;
  bool unbuffered = false;
  int kill_on_bad_exit = 0;
  int wait_s = 0;                   // --wait: end the step this long after the first task ended
  std::string distribution;        // -m: block / cyclic
  int64_t jobid = 0;               // --jobid
  bool nodes_set = false, ntasks_set = false, npn_set = false;
  bool getopt_error = false;
  // Step resources, binding and I/O (srun only):
  bool exact = false;              // --exact (-c implies it)
  bool overlap = false;            // --overlap
  std::string cpu_bind;            // --cpu-bind as typed
  std::string gpu_bind;            // --gpu-bind as typed
  std::string output, error, input;  // -o / -e / -i patterns ("" = srun's own streams)
  // What -v prints: each option given, by long name, with its value ("set" for flags;
  // the last one given wins; verbose counts its -v's).
  std::map<std::string, std::string> defined;
};

// The -v report of the options given, in Slurm's layout ("srun: defined options", one
// "srun: <name padded to 20>: <value>" line each, "srun: end of defined options").
std::string DefinedOptionsReport(const std::string& prog, const SrunOptions& o);

// `prog` is "srun" or "salloc".
Status ParseSrunArgs(const std::string& prog, const std::vector<std::string>& args,
                     SrunOptions* o);

}  // namespace sluice
