// sshare: the fair-share tree. RunSshare(args, env) -> exit code.
// Options: -a/--all (every user), -A/--accounts=list, -u/--users=list, -l/--long,
// -n/--noheader, -P/--parsable2, -p/--parsable (trailing '|'), -V, --help.
// Columns (Slurm 22.05 widths, each followed by one space): Account (20, left, indented
// one space per tree level), User (10), RawShares (10), NormShares (11), RawUsage (11),
// [-l: NormUsage (11)], EffectvUsage (13), FairShare (10) [-l: LevelFS (10),
// GrpTRESMins (30), TRESRunMins (30), shown empty]. Without -a/-u, user rows are only
// the caller's; accounts are always listed (filtered by -A).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSshare(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
