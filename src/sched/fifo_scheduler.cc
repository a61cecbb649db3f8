// Strict FIFO first-fit: see MakeFifoScheduler in scheduler.h.
#include "sched/placement.h"
#include "sched/scheduler.h"

namespace sluice::sched {

namespace {

class FifoScheduler : public Scheduler {
 public:
  Plan Schedule(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                int64_t now) override {
    const ClusterSnapshot empty = EmptyCluster(snapshot);
    ClusterSnapshot working = snapshot;
    bool blocked = false;
    Plan plan;
    plan.decisions.reserve(pending.size());
    for (const JobRequest& job : pending) {
      plan.decisions.push_back(Decide(empty, &working, job, &blocked));
    }
    return plan;
  }

 private:
  // One job's decision; starts it on `working` when it fits and the queue is not blocked.
  static Decision Decide(const ClusterSnapshot& empty, ClusterSnapshot* working,
                         const JobRequest& job, bool* blocked) {
    Decision decision = CheckFeasibleOnEmpty(empty, job);
    if (decision.outcome == Outcome::kNever) return decision;
    decision.alloc.clear();
    decision.outcome = Outcome::kPending;
    if (*blocked) {
      decision.reason = kReasonPriority;
      return decision;
    }
    if (!PlaceJob(*working, job, &decision.alloc)) {
      decision.reason = kReasonResources;
      *blocked = true;
      return decision;
    }
    decision.outcome = Outcome::kStartNow;
    ApplyAllocation(working, decision.alloc, job.exclusive);
    return decision;
  }
};

}  // namespace

std::unique_ptr<Scheduler> MakeFifoScheduler() { return std::make_unique<FifoScheduler>(); }

}  // namespace sluice::sched
