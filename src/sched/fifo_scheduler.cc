// Strict FIFO first-fit: see MakeFifoScheduler in scheduler.h.
#include "sched/placement.h"
#include "sched/reservations.h"
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
      plan.decisions.push_back(Decide(empty, &working, job, now, &blocked));
    }
    return plan;
  }

 private:
  // One job's decision; starts it on `working` when it fits and the queue is not blocked.
  static Decision Decide(const ClusterSnapshot& empty, ClusterSnapshot* working,
                         const JobRequest& job, int64_t now, bool* blocked) {
    Decision decision = CheckFeasibleOnEmpty(empty, job);
    if (decision.outcome == Outcome::kNever) return decision;
    decision.alloc.clear();
    decision.outcome = Outcome::kPending;
    if (*blocked) {
      decision.reason = kReasonPriority;
      return decision;
    }
    // Reservations: a job may not hold reserved nodes it is not entitled to.
    JobRequest restricted = job;
    if (!working->reservations.empty() &&
        !RestrictForReservations(*working, now, &restricted, &decision.reason)) {
      *blocked = true;
      return decision;
    }
    if (!PlaceJob(*working, restricted, &decision.alloc)) {
      decision.reason = kReasonResources;
      std::vector<NodeShare> unrestricted;
      if (job.reservation.empty() && !working->reservations.empty() &&
          PlaceJob(*working, job, &unrestricted)) {
        std::vector<std::string> names;
        for (const NodeShare& s : unrestricted) names.push_back(s.node);
        const int64_t end = job.time_limit_s > 0 ? AddTime(now, job.time_limit_s) : kForever;
        std::string why = BlockedByReason(*working, names, now, end);
        if (!why.empty()) decision.reason = why;
      }
      decision.alloc.clear();
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
