// FIFO, EASY and conservative backfill over a Timeline. See MakeScheduler in scheduler.h.
//
// One pass walks the pending jobs in order. A job starts now when it fits for its whole
// duration on the timeline, which already holds this pass's starts and reservations, so
// a job that starts now can never delay a reservation made before it. A job that cannot
// start may get a reservation at its earliest start (EASY: only until the first one is
// made; conservative: the first bf_max_job_test such jobs, 0 = all). Reservation starts
// are rounded up to bf_resolution_s and must lie within bf_window_s. Advance reservations
// (reservations.h) give each reservation its own lane (timeline) of what its jobs may use.
// The components of a heterogeneous job are decided together when the first of them comes
// up (DecideGroup): all start now, or all get a reservation at one common start, or none.
// Jobs hold the plan for their predicted run time when they carry one (else their limit).
// Once a job waits for resources (the head), the jobs after it are tried in the
// configured backfill order (backfill_order.h); a starving head makes the rest of the
// pass plan with limits instead of predictions.
#include <algorithm>
#include <deque>
#include <map>

#include "sched/assoc_limits.h"
#include "sched/placement.h"
#include "sched/preempt.h"
#include "sched/reservations.h"
#include "sched/scheduler.h"
#include "sched/shape_table.h"
#include "sched/timeline.h"

namespace sluice::sched {

namespace {

class BackfillPass {
 public:
  BackfillPass(const SchedulerConfig& config, const ClusterSnapshot& snapshot, int64_t now)
      : config_(config), snapshot_(snapshot), now_(now), limits_(snapshot.limits) {
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
    // Lane 0: jobs outside reservations (every reservation blocked). With reservations,
    // one lane per live reservation (its jobs) and a last lane without any block (to tell
    // "waits for a reservation" from "waits for resources"). Every start and planned start
    // is reserved in every lane, so all lanes only ever lose capacity.
    lanes_.emplace_back(snapshot, now);
    for (const ReservationWindow& r : snapshot.reservations) {
      if (r.end <= now || r.end <= r.start || lane_of_.count(r.name)) continue;
      lane_of_[r.name] = lanes_.size();
      lanes_.emplace_back(snapshot, now);
      lanes_.back().resv = &r;
      BlockReservations(&lanes_.back().timeline, snapshot, now, r.name, &r);
    }
    if (lanes_.size() > 1 || !snapshot.reservations.empty()) {
      BlockReservations(&lanes_[0].timeline, snapshot, now, "", nullptr);
      lanes_.emplace_back(snapshot, now);
      free_lane_ = &lanes_.back();
    }
  }

  // The components of one heterogeneous job (in pending order), decided at once.
  std::vector<Decision> DecideGroup(const std::vector<const JobRequest*>& members) {
    std::vector<Decision> out(members.size());
    for (size_t k = 0; k < members.size(); ++k) out[k].job_id = members[k]->job_id;
    auto all = [&](Outcome outcome, const std::string& reason) {
      for (Decision& d : out) {
        d.outcome = outcome;
        d.reason = reason;
      }
      return out;
    };
    const JobRequest& first = *members[0];
    const auto [lane, t0, latest] = WindowFor(first.reservation);
    if (lane == nullptr) return all(Outcome::kPending, kReasonResvDeleted);
    std::vector<Shape*> shapes;
    for (const JobRequest* m : members) {
      Shape& shape = lane->shapes.Get(*m);
      if (shape.never) return all(Outcome::kNever, shape.never_reason);
      if (m->reservation != first.reservation) return all(Outcome::kNever, kReasonBadConstraints);
      shapes.push_back(&shape);
    }
    if (static_cast<int>(members.size()) != first.het_size)
      return all(Outcome::kPending, kReasonResources);
    for (const JobRequest* m : members) {
      if (std::string why = limits_.Check(*m); !why.empty()) return all(Outcome::kPending, why);
    }
    if (blocked_) return all(Outcome::kPending, kReasonPriority);
    auto duration = [&](size_t k) { return Duration(*members[k]); };
    std::vector<Placement> places(members.size());
    if (t0 == now_) {
      Timeline trial = lane->timeline;  // a what-if copy: the group fits as a whole or not at all
      size_t k = 0;
      for (; k < members.size() &&
             trial.FitNow(shapes[k]->need, shapes[k]->filter, duration(k), &places[k]);
           ++k)
        trial.Reserve(places[k]);
      if (k == members.size()) {
        for (k = 0; k < members.size(); ++k) {
          ReserveEverywhere(places[k]);
          limits_.Start(*members[k]);
          out[k].outcome = Outcome::kStartNow;
          out[k].alloc = StartShares(*members[k], places[k]);
        }
        return out;
      }
    }
    if (fifo_) {
      blocked_ = true;
      return all(Outcome::kPending, kReasonResources);
    }
    if (reservations_ >= max_reservations_ || tests_ >= max_tests_)
      return all(Outcome::kPending, kReasonPriority);
    ++tests_;
    all(Outcome::kPending, kReasonResources);
    // The earliest start every component can share: raise it to the latest of their own
    // earliest starts until one start fits them all (bounded rounds).
    int64_t start = t0;
    for (int round = 0; round < 16; ++round) {
      Timeline trial = lane->timeline;
      bool common = true;
      for (size_t k = 0; k < members.size() && common; ++k) {
        if (!trial.FindStart(shapes[k]->need, shapes[k]->filter, start, duration(k),
                             config_.bf_resolution_s, latest, &places[k])) {
          return out;
        }
        common = places[k].start == start;
        if (common) trial.Reserve(places[k]);
        start = places[k].start;
      }
      if (!common) continue;
      for (size_t k = 0; k < members.size(); ++k) {
        ReserveEverywhere(places[k]);
        out[k].planned_start = start;
        out[k].planned_alloc = PlannedShares(*members[k], places[k]);
      }
      ++reservations_;
      return out;
    }
    return out;
  }

  // From now on, jobs are planned with their time limits (a starving head is protected
  // from under-predicted backfills).
  void PlanWithLimits() { with_limits_ = true; }

  Decision Decide(const JobRequest& job) {
    Decision decision;
    decision.job_id = job.job_id;
    const auto [lane, t0, latest] = WindowFor(job.reservation);
    if (lane == nullptr) {
      Shape& shape = lanes_[0].shapes.Get(job);
      decision.outcome = shape.never ? Outcome::kNever : Outcome::kPending;
      decision.reason = shape.never ? shape.never_reason : kReasonResvDeleted;
      return decision;
    }
    Shape& shape = lane->shapes.Get(job);
    if (shape.never) {
      decision.outcome = Outcome::kNever;
      decision.reason = shape.never_reason;
      return decision;
    }
    decision.outcome = Outcome::kPending;
    if (std::string why = limits_.Check(job); !why.empty()) {  // assoc/QOS limits: skip
      decision.reason = why;
      return decision;
    }
    if (blocked_) {
      decision.reason = kReasonPriority;
      return decision;
    }
    const int64_t duration = Duration(job);
    Placement placement;
    if (t0 == now_ && duration < shape.fit_now_fails_from) {
      if (lane->timeline.FitNow(shape.need, shape.filter, duration, &placement)) {
        ReserveEverywhere(placement);
        limits_.Start(job);
        decision.outcome = Outcome::kStartNow;
        decision.alloc = StartShares(job, placement);
        return decision;
      }
      shape.fit_now_fails_from = duration;
    }
    std::string special;  // a reservation-specific reason, which wins over Priority
    if (t0 > now_) special = kReasonReservation;
    if (job.reservation.empty() && free_lane_) special = BlockedReason(job, duration);
    if (fifo_) {  // the first job that cannot start blocks the rest of the queue
      blocked_ = true;
      decision.reason = special.empty() ? kReasonResources : special;
      return decision;
    }
    if (reservations_ >= max_reservations_ || tests_ >= max_tests_) {
      decision.reason = special.empty() ? kReasonPriority : special;
      return decision;
    }
    ++tests_;
    decision.reason = special.empty() ? kReasonResources : special;
    if (duration >= shape.no_start_from) return decision;
    const int64_t start_from = shape.StartBound(duration, t0);
    if (latest < start_from ||
        !lane->timeline.FindStart(shape.need, shape.filter, start_from, duration,
                                  config_.bf_resolution_s, latest, &placement)) {
      shape.no_start_from = duration;
      return decision;
    }
    shape.NoteStart(duration, placement.start);
    ReserveEverywhere(placement);
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
      share.gpu_ids = lanes_[0].timeline.GpuIds(grant.node, grant.gpus);
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

  struct Lane {
    Lane(const ClusterSnapshot& snapshot, int64_t now)
        : timeline(Timeline::Build(snapshot, now)), shapes(snapshot, timeline) {}
    Timeline timeline;
    ShapeTable shapes;
    const ReservationWindow* resv = nullptr;
  };

  // Where and when a job may be placed: its reservation's lane and window, or lane 0 from
  // now (lane nullptr: it names a reservation that no longer exists).
  struct Window {
    Lane* lane = nullptr;
    int64_t t0 = 0;
    int64_t latest = 0;
  };
  Window WindowFor(const std::string& reservation) {
    if (reservation.empty()) return {&lanes_[0], now_, latest_start_};
    auto it = lane_of_.find(reservation);
    if (it == lane_of_.end()) return {nullptr, now_, latest_start_};
    Lane* lane = &lanes_[it->second];
    return {lane, std::max(now_, lane->resv->start), std::min(latest_start_, lane->resv->end - 1)};
  }

  // How long the plan holds a job's resources: its predicted run time, else its time
  // limit, else the whole window.
  int64_t Duration(const JobRequest& job) const {
    if (job.predicted_runtime_s > 0 && !with_limits_) {
      return job.time_limit_s > 0 ? std::min(job.predicted_runtime_s, job.time_limit_s)
                                  : job.predicted_runtime_s;
    }
    return job.time_limit_s > 0 ? job.time_limit_s : window_;
  }

  void ReserveEverywhere(const Placement& placement) {
    for (Lane& lane : lanes_) lane.timeline.Reserve(placement);
  }

  // Why a job outside reservations cannot start now when, with reservations ignored, it
  // could: the reservations in the way ("" when it is not them).
  std::string BlockedReason(const JobRequest& job, int64_t duration) {
    Shape& shape = free_lane_->shapes.Get(job);
    if (shape.never || duration >= shape.fit_now_fails_from) return "";
    Placement placement;
    if (!free_lane_->timeline.FitNow(shape.need, shape.filter, duration, &placement)) {
      shape.fit_now_fails_from = duration;
      return "";
    }
    std::vector<std::string> names;
    for (const NodeGrant& g : placement.grants) names.push_back(snapshot_.nodes[g.node].name);
    return BlockedByReason(snapshot_, names, now_, AddTime(now_, duration));
  }

  const SchedulerConfig& config_;
  const ClusterSnapshot& snapshot_;
  const int64_t now_;
  std::deque<Lane> lanes_;  // stable addresses (shape tables point at timelines)
  std::map<std::string, size_t> lane_of_;
  Lane* free_lane_ = nullptr;
  int64_t window_ = kForever;
  int64_t latest_start_ = kForever;
  int64_t max_reservations_ = INT64_MAX;
  int64_t max_tests_ = INT64_MAX;
  int64_t reservations_ = 0;
  int64_t tests_ = 0;
  bool fifo_ = false;
  bool blocked_ = false;
  bool with_limits_ = false;
  std::unordered_map<int, std::vector<char>> cpus_taken_;
  LimitsTracker limits_;
};

// The head of the queue: the first job that waits for resources (with or without a
// reservation), not for a limit or a reservation window.
bool IsHead(const Decision& d) {
  return d.outcome == Outcome::kPending && (d.planned_start > 0 || d.reason == kReasonResources);
}

class BackfillScheduler : public Scheduler {
 public:
  explicit BackfillScheduler(const SchedulerConfig& config) : config_(config) {}

  Plan Schedule(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                int64_t now) override {
    Plan plan = Pass(snapshot, pending, now);
    PlanPreemptions(snapshot, pending, now, &plan);  // preempt.h
    if (!plan.preemptions.empty()) {                 // again, with the preemptors' places taken
      std::vector<Preemption> preemptions = std::move(plan.preemptions);
      plan = Pass(ClaimPreemptorPlaces(snapshot, preemptions, pending), pending, now);
      plan.preemptions = std::move(preemptions);
    }
    return plan;
  }

  std::vector<size_t> ConsideredOrder(const std::vector<JobRequest>& pending,
                                      int64_t now) const override {
    BackfillOrderConfig queue = config_.bf_order;
    queue.order = config_.queue_order;
    return QueueOrder(pending, queue, now);
  }

  Plan Pass(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending, int64_t now) {
    BackfillPass pass(config_, snapshot, now);
    Plan plan;
    plan.decisions.reserve(pending.size());
    std::map<int64_t, std::vector<const JobRequest*>> groups;  // heterogeneous jobs' components
    for (const JobRequest& job : pending) {
      if (job.het_job_id != 0) groups[job.het_job_id].push_back(&job);
    }
    std::map<int64_t, Decision> decided;  // components decided with the first of their group
    std::vector<size_t> order(pending.size());
    for (size_t pos = 0; pos < order.size(); ++pos) order[pos] = pos;
    plan.decisions.resize(pending.size());
    bool head_found = false;
    for (size_t k = 0; k < order.size(); ++k) {
      const JobRequest& job = pending[order[k]];
      Decision& out = plan.decisions[order[k]];
      if (job.het_job_id == 0) {
        out = pass.Decide(job);
      } else {
        auto it = decided.find(job.job_id);
        if (it == decided.end()) {
          for (Decision& d : pass.DecideGroup(groups[job.het_job_id]))
            decided[d.job_id] = std::move(d);
          it = decided.find(job.job_id);
        }
        out = std::move(it->second);
      }
      if (!head_found && IsHead(out)) {  // the rest are backfill candidates
        head_found = true;
        if (IsStarving(job, config_.bf_order, now)) pass.PlanWithLimits();
        std::vector<size_t> rest(order.begin() + k + 1, order.end());
        SortBackfillCandidates(pending, config_.bf_order, now, &rest);
        std::copy(rest.begin(), rest.end(), order.begin() + k + 1);
      }
    }
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
