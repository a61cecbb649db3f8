// squeue: list jobs. RunSqueue(args, env) -> exit code.
// Options: -A -a -h -j (list; also takes the next word) -l -n --me -o -O -p -q -r -S(accepted)
// --start -t (state list, short forms, "all") -u (names or uids) -w -v -V --help --usage.
// Completed jobs are hidden unless -t names them (or "all"), even with -j. A single -j id
// the controller does not know: "slurm_load_jobs error: Invalid job id specified", exit 1.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSqueue(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
