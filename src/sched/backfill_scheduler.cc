// FIFO, EASY and conservative backfill over a Timeline. See MakeScheduler in scheduler.h.
//
// One pass walks the pending jobs in order. A job starts now when it fits for its whole
// duration on the timeline, which already holds this pass's starts and reservations, so
// a job that starts now can never delay a reservation made before it. A job that cannot
// start may get a reservation at its earliest start (EASY: only until the first one is
// made; conservative: the first bf_max_job_test such jobs, 0 = all). Reservation starts
// are rounded up to bf_resolution_s and must lie within bf_window_s.
#include <algorithm>

#include "sched/placement.h"
#include "sched/scheduler.h"
#include "sched/shape_table.h"
#include "sched/timeline.h"

namespace sluice::sched {

namespace {

class BackfillPass {
 public:
  BackfillPass(const SchedulerConfig& config, const ClusterSnapshot& snapshot, int64_t now)
      : config_(config),
        snapshot_(snapshot),
        now_(now),
        timeline_(Timeline::Build(snapshot, now)),
        shapes_(snapshot, timeline_) {
    window_ = config.bf_window_s > 0 ? config.bf_window_s : kForever;
    latest_start_ = window_ >= kForever ? kForever : now + window_ - 1;
    if (config.policy == SchedulerConfig::Policy::kFifo) {
      fifo_ = true;
      max_reservations_ = 0;
    } else if (config.policy == SchedulerConfig::Policy::kEasy) {
      max_reservations_ = 1;
    } else {
      max_tests_ = config.bf_max_job_test > 0 ? config.bf_max_job_test : INT64_MAX;
    }
  }

  Decision Decide(const JobRequest& job) {
    Decision decision;
    decision.job_id = job.job_id;
    Shape& shape = shapes_.Get(job);
    if (shape.never) {
      decision.outcome = Outcome::kNever;
      decision.reason = shape.never_reason;
      return decision;
    }
    decision.outcome = Outcome::kPending;
    if (blocked_) {
      decision.reason = kReasonPriority;
      return decision;
    }
    const int64_t duration = job.time_limit_s > 0 ? job.time_limit_s : window_;
    Placement placement;
    if (duration < shape.fit_now_fails_from) {
      if (timeline_.FitNow(shape.need, shape.filter, duration, &placement)) {
        timeline_.Reserve(placement);
        decision.outcome = Outcome::kStartNow;
        decision.alloc = StartShares(job, placement);
        return decision;
      }
      shape.fit_now_fails_from = duration;
    }
    if (fifo_) {  // the first job that cannot start blocks the rest of the queue
      blocked_ = true;
      decision.reason = kReasonResources;
      return decision;
    }
    if (reservations_ >= max_reservations_ || tests_ >= max_tests_) {
      decision.reason = kReasonPriority;
      return decision;
    }
    ++tests_;
    decision.reason = kReasonResources;
    if (duration >= shape.no_start_from) return decision;
    const int64_t t0 = shape.StartBound(duration, now_);
    if (!timeline_.FindStart(shape.need, shape.filter, t0, duration, config_.bf_resolution_s,
                             latest_start_, &placement)) {
      shape.no_start_from = duration;
      return decision;
    }
    shape.NoteStart(duration, placement.start);
    timeline_.Reserve(placement);
    ++reservations_;
    decision.planned_start = placement.start;
    decision.planned_alloc = PlannedShares(job, placement);
    return decision;
  }

 private:
  // Concrete shares for a job starting now: the lowest free CPU ids, the granted GPUs.
  std::vector<NodeShare> StartShares(const JobRequest& job, const Placement& placement) {
    std::vector<NodeShare> shares = PlannedShares(job, placement);
    for (size_t k = 0; k < shares.size(); ++k) {
      const NodeGrant& grant = placement.grants[k];
      const Node& node = snapshot_.nodes[grant.node];
      std::vector<char>& taken = CpusTaken(grant.node);
      for (int id = 0; id < node.cpus && static_cast<int>(shares[k].cpu_ids.size()) < grant.cpus;
           ++id) {
        if (taken[id]) continue;
        taken[id] = 1;
        shares[k].cpu_ids.push_back(id);
      }
    }
    return shares;
  }

  std::vector<NodeShare> PlannedShares(const JobRequest& job, const Placement& placement) {
    std::vector<NodeShare> shares;
    for (const NodeGrant& grant : placement.grants) {
      NodeShare share;
      share.node = snapshot_.nodes[grant.node].name;
      share.mem_mb = grant.mem_mb;
      share.gpu_ids = timeline_.GpuIds(grant.node, grant.gpus);
      share.ntasks = job.tasks_per_node;
      shares.push_back(std::move(share));
    }
    return shares;
  }

  std::vector<char>& CpusTaken(int node) {
    auto [it, inserted] = cpus_taken_.try_emplace(node);
    if (inserted) {
      const Node& n = snapshot_.nodes[node];
      it->second.assign(n.cpus, 0);
      for (int id = 0; id < n.cpus && id < static_cast<int>(n.cpu_used.size()); ++id)
        it->second[id] = n.cpu_used[id];
    }
    return it->second;
  }

  const SchedulerConfig& config_;
  const ClusterSnapshot& snapshot_;
  const int64_t now_;
  Timeline timeline_;
  ShapeTable shapes_;
  int64_t window_ = kForever;
  int64_t latest_start_ = kForever;
  int64_t max_reservations_ = INT64_MAX;
  int64_t max_tests_ = INT64_MAX;
  int64_t reservations_ = 0;
  int64_t tests_ = 0;
  bool fifo_ = false;
  bool blocked_ = false;
  std::unordered_map<int, std::vector<char>> cpus_taken_;
};

class BackfillScheduler : public Scheduler {
 public:
  explicit BackfillScheduler(const SchedulerConfig& config) : config_(config) {}

  Plan Schedule(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                int64_t now) override {
    BackfillPass pass(config_, snapshot, now);
    Plan plan;
    plan.decisions.reserve(pending.size());
    for (const JobRequest& job : pending) plan.decisions.push_back(pass.Decide(job));
    return plan;
  }

 private:
  SchedulerConfig config_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeScheduler(const SchedulerConfig& config) {
  return std::make_unique<BackfillScheduler>(config);
}

std::unique_ptr<Scheduler> MakeFifoScheduler() {
  SchedulerConfig config;
  config.policy = SchedulerConfig::Policy::kFifo;
  return MakeScheduler(config);
}

}  // namespace sluice::sched
