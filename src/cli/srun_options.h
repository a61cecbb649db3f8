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
  SbatchOptions alloc;  // resources, name, partition, time, export, chdir
  std::vector<std::string> command;
  bool label = false;
  bool unbuffered = false;
  int kill_on_bad_exit = 0;
  int wait_s = 0;                  // --wait: end the step this long after the first task ended
  int het_group = -1;              // --het-group: the heterogeneous job's component (-1 = first)
  bool quit_on_interrupt = false;  // --quit-on-interrupt: the first Ctrl-C kills the step
  int immediate_s = -1;            // -I/--immediate[=secs] (1 without a value); -1 = wait
  bool multi_prog = false;         // --multi-prog: command[0] is the MPMD file (multi_prog.h)
  std::string multi_prog_file;     // that file, once command is the program made of it
  std::string task_prolog, task_epilog;  // --task-prolog / --task-epilog (absolute paths)
  std::string distribution;              // -m: block / cyclic
  int64_t jobid = 0;                     // --jobid
  bool nodes_set = false, ntasks_set = false, npn_set = false;
  bool getopt_error = false;
  // Step resources, binding and I/O (srun only):
  bool exact = false;                // --exact (-c implies it)
  bool overlap = false;              // --overlap
  std::string cpu_bind;              // --cpu-bind as typed
  std::string gpu_bind;              // --gpu-bind as typed
  std::string output, error, input;  // -o / -e / -i patterns ("" = srun's own streams)
  // What -v prints: each option given, by long name, with its value ("set" for flags;
  // the last one given wins; verbose counts its -v's).
  std::map<std::string, std::string> defined;
};

// The -v report of the options given, in Slurm's layout ("srun: defined options", one
// "srun: <name padded to 20>: <value>" line each, "srun: end of defined options").
std::string DefinedOptionsReport(const std::string& prog, const SrunOptions& o);

// srun's input environment variables (srun(1)) as the options they stand for, to be
// placed before the command line (which overrides them): SLURM_DEBUG (-v per level),
// SLURM_OVERCOMMIT, SLURM_STDOUTMODE/STDERRMODE/STDINMODE, SLURM_LABELIO,
// SLURM_UNBUFFEREDIO, SLURM_KILL_BAD_EXIT, SLURM_WAIT; outside an allocation (no
// SLURM_JOB_ID) also SLURM_NTASKS/SLURM_NPROCS, SLURM_NNODES, SLURM_PARTITION,
// SLURM_ACCOUNT and SLURM_TIMELIMIT; inside one those describe the job, which srun
// takes as its default anyway.
std::vector<std::string> SrunEnvArgs(const std::map<std::string, std::string>& env);

// `prog` is "srun" or "salloc".
Status ParseSrunArgs(const std::string& prog, const std::vector<std::string>& args, SrunOptions* o);

}  // namespace sluice
