// sbatch: submit a batch script (file argument, --wrap, or stdin).
//   RunSbatch({"-N2", "job.sh", "arg"}, env) -> exit code, output on env.out/env.err
// Output and exit codes as Slurm's (see sbatch_options.h for option errors):
//   "Submitted batch job N" (or "N" with --parsable, nothing with -Q), 0
//   --test-only: "sbatch: <controller's message>" on stderr, 0
//   --wait: waits for the job to end; exit code = the job's exit code (1 when it ended
//     in another state without one, 128+signal when it was killed by a signal)
//   unrecognized option: glibc message + `Try "sbatch --help" ...`, 255
//   submission refused: "sbatch: error: Batch job submission failed: <msg>", 1
//     (a multi-line controller message prints its earlier lines as errors first)
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSbatch(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
