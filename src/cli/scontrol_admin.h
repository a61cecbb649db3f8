// scontrol's token and setdebug commands, with Slurm 22.05's wording:
//   token [lifespan=SECONDS] [username=USER]  -> "SLURM_JWT=<token>" on stdout, 0;
//       a bad option: "Invalid option: `X`", 1; refused: "scontrol: error: <why>" then
//       "Error fetching token", 1
//   takeover        -> silent, 0: the leading controller hands over to a standby and stops;
//                      "slurm_takeover error: ...", 1 (not an admin, no standby)
//   setdebug LEVEL  -> silent, 0; "too few/many arguments for keyword:setdebug", 1;
//       refused: "slurm_set_debug_level error: <why>" ("invalid debug level: X",
//       "Access/permission denied"), 1
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int ScontrolToken(CliEnv& env, const std::vector<std::string>& args);
int ScontrolTakeover(CliEnv& env, const std::vector<std::string>& args);
// scontrol reconfigure: the controller rereads its config file; prints each change it
// applied, or why it applied none (exit 1).
int ScontrolReconfigure(CliEnv& env, const std::vector<std::string>& args);
int ScontrolSetDebug(CliEnv& env, const std::vector<std::string>& args);

}  // namespace sluice
