// sinfo: partitions and nodes. RunSinfo(args, env) -> exit code.
// Options: -N (node oriented) -l (long, with the date line) -s (summary) -R (reasons)
// -o / -O formats, -p partitions, -t states, -n nodes, -d (down only), -r (responding
// only), -h, -V/--version ("slurm 22.05.8"). Formats as sinfo_format.h.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSinfo(const std::vector<std::string>& args, CliEnv& env);

// "Mon Nov 30 02:26:17 2026" (the -l header line of squeue and sinfo).
std::string LongDateLine(int64_t now);

}  // namespace sluice
