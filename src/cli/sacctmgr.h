// sacctmgr: view and change the association database (clusters, accounts, users,
// QOS). RunSacctmgr(args, env) -> exit code: 0, or 1 with Slurm's message on an
// error (unknown entity, nothing added/modified/deleted, permission denied).
// add/modify/delete without -i/--immediate print what would change, then ask
// (commit_prompt.h): 'y' commits; anything else prints " Changes Discarded." and exits 0.
// Parsing in sacctmgr_args.h, output columns in sacctmgr_format.h.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSacctmgr(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
