// sreport: usage reports from the accounting records. RunSreport(args, env) -> exit code.
//   sreport [options] cluster utilization [start=TIME] [end=TIME]
//   sreport [options] user top [start=TIME] [end=TIME] [TopCount=N]
// Options: -t/--time=minutes|hours|seconds|percent (also Slurm's long spellings),
// --tres=cpu|gres/gpu|node, -P/--parsable2, -p/--parsable, -n/--noheader, -V, -h.
// Default window: yesterday 00:00 to today 00:00 (local). Numbers come from
// sreport_calc.h. Errors: "sreport: error: ..." and exit 1.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSreport(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
