// Scheduling policy names and scheduler construction for the simulator.
//
// Plain policies: "fcfs" (alias "fifo") -> strict FIFO first-fit, "easy" -> EASY
// backfill, "conservative" -> conservative backfill (sched::MakeScheduler).
// Policy specs (ParsePolicySpec) add a runtime prediction and a backfill candidate order
// (sched/backfill_order.h) to a backfilling base: BASE[-pred|-clairvoyant][-ORDER] with
// BASE easy or conservative and ORDER sjbf|wfp3|unicep|f1|sgtf, e.g. easy-sjbf (SJBF by
// requested time), easy-pred (EASY planning with user-history predictions), easy-pred-sjbf
// (Tsafrir's EASY++), easy-clairvoyant-sjbf (exact run times, a reference). An ORDER alone
// ("wfp3", "unicep", "f1", "sjbf") means easy-ORDER; "gpu-sgtf" means easy-sgtf (smallest
// GPU-time first with aging, for GPU traces). A prefix "QORDER:" orders the queue itself
// (SchedulerParameters queue_order, sched/backfill_order.h QueueOrder), e.g. unicep:easy,
// wfp3:easy-sjbf.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sched/scheduler.h"
#include "sim/simulator.h"

namespace sluice::sim {

using Policy = sched::SchedulerConfig::Policy;

Expected<Policy> ParsePolicy(std::string_view name);
const char* PolicyName(Policy policy);

// A scheduler for `policy`: sched::MakeFifoScheduler for kFifo, else sched::MakeScheduler
// with `base`'s backfill knobs (its policy field is ignored).
std::unique_ptr<sched::Scheduler> MakePolicyScheduler(Policy policy,
                                                      const sched::SchedulerConfig& base = {});

struct PolicySpec {
  std::string name;  // as given
  Policy base = Policy::kEasy;
  sched::BackfillOrder order = sched::BackfillOrder::kPriority;
  sched::BackfillOrder queue_order = sched::BackfillOrder::kPriority;
  SimPrediction prediction;
};

Expected<PolicySpec> ParsePolicySpec(std::string_view name);

// The plain policy as a spec.
PolicySpec SpecOf(Policy policy);

// A scheduler for `spec`, with `base`'s backfill knobs (its policy, bf_order.order and
// queue_order are replaced; bf_order.starvation_factor and origin are kept).
std::unique_ptr<sched::Scheduler> MakeSpecScheduler(const PolicySpec& spec,
                                                    const sched::SchedulerConfig& base = {});

}  // namespace sluice::sim
