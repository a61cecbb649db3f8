// sprio: the priority factors of pending jobs. RunSprio(args, env) -> exit code.
// Options: -h/--noheader, -j/--jobs[=list], -l/--long, -n/--norm, -o/--format,
// -u/--user=list, -p/--partition=list, -w/--weights, -V/--version, --help.
// Default format (Slurm 22.05): "%.15i %9r %.10Y %.10S" plus, for each factor with a
// non-zero weight, %.10A %.10B %.10F %.10J %.10P %.10Q and "%20T" (-u adds %.8u after
// the partition); -l: "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q
// %.11N %.20T". Keys: i job, r partition, u user, o account, Y/y priority (weighted /
// normalised), S site, A/a age, B/b assoc, F/f fairshare, J/j job size, P/p partition,
// Q/q QOS, N nice, T/t TRES. Under PriorityType=priority/basic it says so, exit 1.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSprio(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
