// sdiag: the controller's statistics (the GetStats rpc) in Slurm's layout: jobs
// submitted/started/completed/canceled/failed since the start or the last reset, the
// scheduling passes (microseconds; Sluice's backfill runs inside the main pass, so its
// starts are counted there too), queues, and the RPCs by method. Options: -a/--all
// (the default), -r/--reset (admins), --json, -V/--version, --help, --usage.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSdiag(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
