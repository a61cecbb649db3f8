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

// Whether this build has a scheduler for `policy`.
bool PolicyAvailable(Policy policy);

// A scheduler for `policy`; `base` supplies the backfill knobs (its policy is ignored).
Expected<std::unique_ptr<sched::Scheduler>> MakePolicyScheduler(
    Policy policy, const sched::SchedulerConfig& base = {});

}  // namespace sluice::sim
