// `sluice nodes`: what an operator does to a set of nodes at 3 a.m., in one command each,
// made of the Slurm commands' own operations (so permissions and messages are theirs):
//   sluice nodes drain NODES --reason TEXT [--requeue | --cancel]
//   sluice nodes resume NODES
//   sluice nodes requeue NODES      every job running on them goes back to the queue
//   sluice nodes cancel NODES       every job running on them is cancelled
// NODES is a hostlist (node[01-16]). Prints one line per action taken; exit 1 when one
// failed (its error printed as the underlying command prints it).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSluiceNodes(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
