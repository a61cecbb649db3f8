// scancel: cancel or signal jobs. RunScancel(args, env) -> exit code.
// Job ids as arguments (several, any order with options); filters -u -n -p -t -A -q -w
// --me select jobs (ANDed with the ids). -s/--signal sends a signal instead of
// cancelling; -b signals only the batch shell. Messages and exit codes as Slurm's:
//   unknown or finished job: silent, exit 0 (with -v: "Kill job error on job id N: ...")
//   another user's job: "scancel: error: Kill job error on job id N: Access/permission
//   denied", exit 210 (Slurm's error number 2002 & 0xff)
//   nothing given: "scancel: error: No job identification provided", exit 1.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunScancel(const std::vector<std::string>& args, CliEnv& env);

// Slurm's error number for a controller error (code = CancelResult.code or a Code).
int SlurmErrno(int code, const std::string& message);

}  // namespace sluice
