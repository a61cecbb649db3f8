// Policy selection: see policy.h.
#include "sim/policy.h"

#include <fmt/format.h>

#include <vector>

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

PolicySpec SpecOf(Policy policy) {
  PolicySpec spec;
  spec.name = PolicyName(policy);
  spec.base = policy;
  return spec;
}

namespace {

std::vector<std::string_view> SplitDashes(std::string_view name) {
  std::vector<std::string_view> parts;
  size_t from = 0;
  while (true) {
    const size_t dash = name.find('-', from);
    parts.push_back(name.substr(from, dash - from));
    if (dash == std::string_view::npos) return parts;
    from = dash + 1;
  }
}

}  // namespace

Expected<PolicySpec> ParsePolicySpec(std::string_view name) {
  if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
    sched::BackfillOrder queue;
    if (name.find(':', colon + 1) != std::string_view::npos)
      return InvalidArgument(fmt::format("'{}': one queue order at most", name));
    if (!sched::ParseBackfillOrder(name.substr(0, colon), &queue))
      return InvalidArgument(fmt::format(
          "unknown queue order '{}' in '{}' (want priority, sjbf, wfp3, unicep, f1 or sgtf)",
          name.substr(0, colon), name));
    ASSIGN_OR_RETURN(PolicySpec spec, ParsePolicySpec(name.substr(colon + 1)));
    if (spec.base == Policy::kFifo)
      return InvalidArgument(fmt::format("'{}': a queue order needs a backfill policy", name));
    spec.name = std::string(name);
    spec.queue_order = queue;
    return spec;
  }
  if (auto plain = ParsePolicy(name); plain.ok()) return SpecOf(*plain);
  auto bad = [&] {
    return InvalidArgument(fmt::format(
        "unknown policy '{}' (want fcfs, easy, conservative or "
        "easy|conservative[-pred|-clairvoyant][-sjbf|-wfp3|-unicep|-f1|-sgtf], wfp3, unicep, "
        "f1, gpu-sgtf)",
        name));
  };
  PolicySpec spec;
  spec.name = std::string(name);
  std::vector<std::string_view> parts = SplitDashes(name);
  size_t k = 0;
  if (parts[0] == "easy" || parts[0] == "conservative") {
    spec.base = parts[0] == "easy" ? Policy::kEasy : Policy::kConservative;
    ++k;
  } else if (parts[0] == "gpu" && parts.size() == 2 && parts[1] == "sgtf") {
    ++k;
  }
  if (k < parts.size() && (parts[k] == "pred" || parts[k] == "clairvoyant")) {
    spec.prediction.mode =
        parts[k] == "pred" ? SimPrediction::Mode::kUser2 : SimPrediction::Mode::kClairvoyant;
    ++k;
  }
  if (k < parts.size()) {
    if (parts[k] == "priority" || !sched::ParseBackfillOrder(parts[k], &spec.order)) return bad();
    ++k;
  }
  if (k != parts.size() || (k == 1 && parts[0] != "easy" && parts[0] != "conservative" &&
                            spec.order == sched::BackfillOrder::kPriority)) {
    return bad();
  }
  return spec;
}

std::unique_ptr<sched::Scheduler> MakeSpecScheduler(const PolicySpec& spec,
                                                    const sched::SchedulerConfig& base) {
  if (spec.base == Policy::kFifo) return sched::MakeFifoScheduler();
  sched::SchedulerConfig config = base;
  config.policy = spec.base;
  config.bf_order.order = spec.order;
  config.queue_order = spec.queue_order;
  if (spec.prediction.mode == SimPrediction::Mode::kUser2) {
    config.bf_predict = sched::SchedulerConfig::Prediction::kUser2;
  }
  return sched::MakeScheduler(config);
}

}  // namespace sluice::sim
