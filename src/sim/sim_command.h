// `sluice sim`: replays a workload trace through the real scheduler on a ManualClock and
// prints the metrics (see report.h). No daemons.
//
//   sluice sim --trace FILE [--format swf|gpu-csv] [--cluster sluice.conf] [--nodes N]
//              [--cpus-per-node C] [--gpus-per-node G] [--policy NAME] [--compare A,B,...]
//              [--bf-max-job-test N] [--bf-starvation-factor K] [--predict-by-app]
//              [--filter none|published] [--limit N] [--json] [--jobs-csv FILE]
//              [--report DIR]
//
// Policy names: sim/policy.h (fcfs, easy, conservative, easy-pred-sjbf, f1, gpu-sgtf, ...).
// --compare replays each policy on the same workload and prints one table (compare.h);
// --report DIR also writes DIR/index.html (html_report.h). --filter published applies the
// published SWF comparisons' filter (trace.h: ApplyPublishedFilter).
//
// argv[0] is the command's name (e.g. "sim"). Exit status: 0 ok, 1 error (message on
// stderr as "sluice sim: ..."), CLI11's codes for usage errors; --help prints usage.
#pragma once

#include <iosfwd>

namespace sluice::sim {

int SimMain(int argc, char** argv);
// The same with explicit streams (tests).
int SimMain(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace sluice::sim
