// `squeue -s/--steps`: running job steps over the GetSteps RPC, in Slurm 22.05's step
// layout (default "%.15i %.8j %.9P %.8u %.9M %N": STEPID NAME PARTITION USER TIME
// NODELIST). Step keys for -o: %i (JOB.STEP) %j %P %u %U %M %N %S %l %A (tasks) %C (CPUs);
// -O names StepId, StepName, Partition, UserName, TimeUsed, NodeList map onto them.
// Only srun steps are listed (the batch step is not tracked as a step).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "cli/format_engine.h"
#include "client.pb.h"

namespace sluice {

inline constexpr char kSqueueStepFormat[] = "%.15i %.8j %.9P %.8u %.9M %N";

struct StepListOptions {
  bool header = true;
  std::string format;                          // -o; empty = kSqueueStepFormat
  std::string format_long;                     // -O
  std::vector<std::pair<int64_t, int>> steps;  // -s list: (job, step); step -1 = all
  std::set<int64_t> jobs;                      // -j
  std::set<uint32_t> uids;                     // -u / --me
  std::set<std::string> partitions;            // -p
};

// Parses the -s argument "12.0,13.1,14" (a job alone = all its steps).
Status ParseStepList(const std::string& list, std::vector<std::pair<int64_t, int>>* out);

// Renders `steps` (already filtered) with `fields`; `now` in unix seconds.
std::string FormatStepTable(const std::vector<FormatField>& fields,
                            const std::vector<StepInfo>& steps, int64_t now, bool header);

// Fetches, filters, sorts (job, step) and prints; returns the exit code.
int ShowSqueueSteps(const StepListOptions& o, CliEnv& env);

}  // namespace sluice
