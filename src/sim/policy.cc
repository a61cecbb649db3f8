// Policy selection: see policy.h.
#include "sim/policy.h"

#include <fmt/format.h>

namespace sluice::sim {

Expected<Policy> ParsePolicy(std::string_view name) {
  if (name == "fcfs" || name == "fifo") return Policy::kFifo;
  if (name == "easy") return Policy::kEasy;
  if (name == "conservative") return Policy::kConservative;
  return InvalidArgument(
      fmt::format("unknown policy '{}' (want fcfs, easy or conservative)", name));
}

const char* PolicyName(Policy policy) {
  switch (policy) {
    case Policy::kFifo:
      return "fcfs";
    case Policy::kEasy:
      return "easy";
    case Policy::kConservative:
      return "conservative";
  }
  return "?";
}

std::unique_ptr<sched::Scheduler> MakePolicyScheduler(Policy policy,
                                                      const sched::SchedulerConfig& base) {
  if (policy == Policy::kFifo) return sched::MakeFifoScheduler();
  sched::SchedulerConfig config = base;
  config.policy = policy;
  return sched::MakeScheduler(config);
}

}  // namespace sluice::sim
