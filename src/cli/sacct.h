// sacct: job accounting. RunSacct(args, env) -> exit code.
// Data: the AcctJobs rpc (live jobs merged with the accounting store). Options:
// -a/--allusers, -A/--accounts=list, -b/--brief, -D/--duplicates (every attempt of a
// requeued job; default only the latest), -E/--endtime, -S/--starttime (time formats:
// YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS], now[-N{seconds,minutes,hours,days}],
// today, midnight, epoch seconds; default start: today 00:00, or the epoch when -j is
// given), -j/--jobs=list (123, 123.0, 123.batch, 44_2), -n/--noheader,
// -o/--format=fields (Field%width), -p/--parsable, -P/--parsable2, -s/--state=list
// (short or long names), -u/--user=list (names or uids), -X/--allocations, --json,
// -V/--version, -h/--help. Without -a/-u a user other than root sees only their own
// jobs. Errors: "sacct: error: ..." and exit 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/time_spec.h"
#include "common/status.h"

namespace sluice {

int RunSacct(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
