// Scheduler interface: (snapshot, pending jobs in priority order, now) -> plan.
// Implementations are pure and deterministic; ties are broken by job id.
#pragma once

#include <memory>
#include <string>

#include "sched/backfill_order.h"
#include "sched/types.h"

namespace sluice::sched {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // `pending` is in the order the controller wants them considered.
  virtual Plan Schedule(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                        int64_t now) = 0;
  // The order its callers hand it `pending` (in priority order) in, as indexes into it:
  // SchedulerConfig's queue_order, the identity when there is none. The controller and
  // the simulator apply it before preemptors are put first.
  virtual std::vector<size_t> ConsideredOrder(const std::vector<JobRequest>& pending,
                                              int64_t now) const {
    return QueueOrder(pending, BackfillOrderConfig{}, now);
  }
};

// Strict FIFO: jobs in order; each starts where it fits now (the same placement as the
// backfill policies: Timeline::FitNow). Once a job cannot
// start, later jobs wait too (reason Priority) so the head of the queue is not starved.
std::unique_ptr<Scheduler> MakeFifoScheduler();

// Scheduler selection and backfill knobs (SchedulerType / SchedulerParameters in config).
struct SchedulerConfig {
  enum class Policy { kFifo, kEasy, kConservative };
  Policy policy = Policy::kEasy;
  int bf_max_job_test = 0;          // conservative: reservations for the first N jobs (0 = all)
  int64_t bf_window_s = 7 * 86400;  // how far ahead backfill plans
  int64_t bf_resolution_s = 60;     // time granularity of the plan
  // The order backfill candidates (the jobs behind the first one that cannot start now)
  // are tried in, and the starvation guard (backfill_order.h). The head keeps the
  // pending order.
  BackfillOrderConfig bf_order;
  // The order the whole queue is taken in (backfill_order.h QueueOrder; kPriority = the
  // pending order as given). It shares bf_order's starvation factor and origin.
  BackfillOrder queue_order = BackfillOrder::kPriority;
  // Runtime predictions (runtime_predictor.h): kUser2 = the caller fills
  // JobRequest.predicted_runtime_s and RunningJob.planned_end from user history (the
  // simulator does; the controller does not yet). The scheduler plans with what it is given.
  enum class Prediction { kNone, kUser2 };
  Prediction bf_predict = Prediction::kNone;
};
std::unique_ptr<Scheduler> MakeScheduler(const SchedulerConfig& config);

// Could `job` ever run on the cluster `snapshot` describes, with every node empty and
// available? Returns kStartNow-shaped decision (with the allocation it would get) or kNever
// with a reason ("Requested node configuration is not available").
Decision CheckFeasible(const ClusterSnapshot& snapshot, const JobRequest& job);

// Tries to place `job` on the snapshot as it is now, first fit in node order (the
// feasibility rule; the policies place with Timeline::FitNow); fills `alloc` on success.
bool PlaceJob(const ClusterSnapshot& snapshot, const JobRequest& job,
              std::vector<NodeShare>* alloc);

// Marks `alloc` as used in `snapshot` (for applying earlier decisions of one pass).
void ApplyAllocation(ClusterSnapshot* snapshot, const std::vector<NodeShare>& alloc,
                     bool exclusive);

}  // namespace sluice::sched
