// The event-driven replay: submits jobs at their trace times, asks the scheduler for a
// plan after each batch of events with the same timestamp (job ends first, then submits),
// starts what it says, and ends each job at start + actual run time. The scheduler sees
// only the request (its time limit is the user's estimate); running jobs are passed with
// end_time = start + time limit. Deterministic and pure apart from the injected clock.
//
// Time: trace times are relative (0 = first submit); the clock reads epoch + t, where
// epoch is the clock's time when Simulate is called, and the scheduler is called with that.
// The snapshot is kept incrementally (allocations applied and released, running list
// updated in place) and only pending jobs are passed to the scheduler. A job that can
// never run on the cluster (CheckFeasible at submit, or kNever from the scheduler) is
// rejected; jobs still pending when no event is left never start (start_s = -1).
// With `priority` enabled, usage is accrued at every event time and pending jobs are
// prioritized and reordered before each scheduler call (sim/priority_pass.h).
// The cluster's other scheduling inputs go to the scheduler as the controller gives them:
// advance reservations (their windows relative, like trace times, and so is a request's
// submit_time, which --switches waits count from), switches, association/
// QOS limits (cluster.limits: the scopes of every job; the replay keeps `running`) and
// preemption (cluster.preempt). Jobs with dependencies (SimJob.after_ok / after_any) join
// the queue when those are met (reason Dependency until then; never when an afterok job
// fails); array throttles admit tasks through sched::ArrayThrottle, as the controller does.
// Preemption victims stop at once (no grace time): `preempt_mode` kRequeue puts them back
// in the queue, anything else cancels them (a victim's QOS rule's own mode wins); the
// scheduler is then asked again at the same time, so the preemptor starts in their place.
// Besides job submits and ends, the replay also passes when a reservation starts or ends,
// a --switches wait runs out and a running job's PreemptExemptTime is over, as the
// controller's periodic pass would.
// Runtime predictions (`prediction`, sched/runtime_predictor.h): kUser2 predicts each job
// when it joins the queue from the runs of the same user (traits.user; + `app` with by_app)
// that ended before then (jobs without a user plan with their limit); kClairvoyant gives
// the exact run time. The request carries it (predicted_runtime_s) and a running job's
// planned_end is start + the prediction, extended step-wise (ExtendPrediction) at each
// pass once outlived. Jobs still end at start + run time (never later than their limit).
// Errors: a scheduler that breaks its contract (wrong number or order of decisions, an
// allocation on an unknown node or on resources already in use) -> Internal status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/preempt_mode.h"
#include "common/status.h"
#include "sched/scheduler.h"
#include "sim/priority_pass.h"
#include "sim/workload.h"

namespace sluice::sim {

struct JobOutcome {
  int64_t start_s = -1;     // relative to the trace start; -1 = never started (last start
  int64_t end_s = -1;       // and end when it was requeued)
  bool rejected = false;    // can never run on this cluster
  int preempted = 0;        // times it was a preemption victim
  std::string reason;       // the last pending reason (empty if it never waited)
  int64_t predicted_s = 0;  // the run time predicted when it last joined the queue (0 = none)
};

struct SimPrediction {
  enum class Mode { kNone, kUser2, kClairvoyant };
  Mode mode = Mode::kNone;
  bool by_app = false;  // kUser2: history per user + app instead of per user
};

struct SimStats {
  int64_t passes = 0;       // scheduler calls
  int64_t max_pending = 0;  // largest pending list passed to the scheduler
};

struct SimResult {
  std::vector<JobOutcome> jobs;  // parallel to the input jobs
  SimStats stats;
};

Expected<SimResult> Simulate(const sched::ClusterSnapshot& cluster, const std::vector<SimJob>& jobs,
                             sched::Scheduler* scheduler, ManualClock* clock,
                             const SimPriority& priority = {},
                             PreemptMode preempt_mode = PreemptMode::kCancel,
                             const SimPrediction& prediction = {});

}  // namespace sluice::sim
