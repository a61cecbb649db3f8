// Scheduling policy names and scheduler construction for the simulator:
// "fcfs" (alias "fifo") -> strict FIFO first-fit, "easy" -> EASY backfill,
// "conservative" -> conservative backfill (sched::MakeScheduler).
#pragma once

#include <memory>
#include <string_view>

#include "common/status.h"
#include "sched/scheduler.h"

namespace sluice::sim {

using Policy = sched::SchedulerConfig::Policy;

Expected<Policy> ParsePolicy(std::string_view name);
const char* PolicyName(Policy policy);

// A scheduler for `policy`: sched::MakeFifoScheduler for kFifo, else sched::MakeScheduler
// with `base`'s backfill knobs (its policy field is ignored).
std::unique_ptr<sched::Scheduler> MakePolicyScheduler(Policy policy,
                                                      const sched::SchedulerConfig& base = {});

}  // namespace sluice::sim
