// Event-driven trace replay: see simulator.h.
#include "sim/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

#include "sched/array_throttle.h"
#include "sched/assoc_limits.h"
#include "sched/placement.h"
#include "sched/preempt.h"
#include "sched/runtime_predictor.h"

namespace sluice::sim {

namespace {

using sched::NodeShare;

sched::Gpu* FindGpu(sched::Node* node, int index) {
  for (sched::Gpu& gpu : node->gpus) {
    if (gpu.index == index) return &gpu;
  }
  return nullptr;
}

// Replay rounds at one event time: each round first lets in the jobs whose dependencies
// are met, then asks the scheduler; another round follows when that one stopped jobs
// (preemption) or settled jobs that others depend on. More would mean jobs preempting one
// another at the same instant without end.
constexpr int kMaxRoundsPerEvent = 100;

class Replay {
 public:
  Replay(const sched::ClusterSnapshot& cluster, const std::vector<SimJob>& jobs,
         sched::Scheduler* scheduler, ManualClock* clock, const SimPriority& priority,
         PreemptMode preempt_mode, const SimPrediction& prediction)
      : jobs_(jobs),
        scheduler_(scheduler),
        clock_(clock),
        epoch_(clock->Now()),
        preempt_mode_(preempt_mode),
        prediction_(prediction),
        snapshot_(cluster),
        empty_(sched::EmptyCluster(cluster)) {
    for (size_t i = 0; i < snapshot_.nodes.size(); ++i) node_index_[snapshot_.nodes[i].name] = i;
    for (sched::ReservationWindow& r : snapshot_.reservations) {
      wakes_.insert({r.start, r.end});
      r.start += epoch_;
      r.end += epoch_;
    }
    result_.jobs.resize(jobs.size());
    running_pos_.assign(jobs.size(), -1);
    eligible_s_.assign(jobs.size(), 0);
    phase_.assign(jobs.size(), Phase::kFuture);
    for (size_t i = 0; i < jobs.size(); ++i) {
      index_of_[jobs[i].request.job_id] = i;
      throttled_ = throttled_ || jobs[i].array_throttle > 0;
    }
    if (priority.enabled) priority_.emplace(priority, cluster, epoch_);
  }

  Expected<SimResult> Run() {
    size_t next_submit = 0;
    while (true) {
      // An end event of a job preempted since is no event: it must not cause a pass.
      while (!ends_.empty() && IsStale(ends_.top())) ends_.pop();
      if (next_submit == jobs_.size() && ends_.empty() &&
          (wakes_.empty() || (pending_.empty() && waiting_.empty()))) {
        break;
      }
      int64_t now = NextEventTime(next_submit);
      wakes_.erase(wakes_.begin(), wakes_.upper_bound(now));
      clock_->Set(epoch_ + now);
      while (!ends_.empty() && ends_.top().first == now) {
        const size_t index = ends_.top().second;
        const bool stale = IsStale(ends_.top());
        ends_.pop();
        if (!stale) RETURN_IF_ERROR(End(index, Phase::kCompleted, now));
      }
      while (next_submit < jobs_.size() && jobs_[next_submit].submit_s == now) {
        Submit(next_submit++, now);
      }
      if (priority_) AccrueUsage(now);
      for (int round = 0; round < kMaxRoundsPerEvent; ++round) {
        Admit(now);
        if (pending_.empty()) break;
        ASSIGN_OR_RETURN(bool again, Pass(now));
        if (!again) break;
      }
    }
    for (size_t index : waiting_) result_.jobs[index].reason = "Dependency";
    return std::move(result_);
  }

 private:
  // kFailed: rejected, or cancelled by preemption (an afterok on it is never met).
  enum class Phase { kFuture, kWaiting, kPending, kRunning, kCompleted, kFailed };

  using EndEvent = std::pair<int64_t, size_t>;  // (end time, job index); ties by index

  // The job was preempted (and perhaps restarted) since the event was queued.
  bool IsStale(const EndEvent& e) const {
    return running_pos_[e.second] < 0 || result_.jobs[e.second].end_s != e.first;
  }

  int64_t NextEventTime(size_t next_submit) const {
    int64_t t = ends_.empty() ? INT64_MAX : ends_.top().first;
    if (next_submit < jobs_.size()) t = std::min(t, jobs_[next_submit].submit_s);
    if (!wakes_.empty()) t = std::min(t, *wakes_.begin());
    return t;
  }

  void Submit(size_t index, int64_t now) {
    const sched::JobRequest& request = jobs_[index].request;
    if (request.max_switches > 0 && request.switches_wait_s > 0) {
      wakes_.insert(now + request.switches_wait_s);  // it then takes what it can
    }
    if (sched::CheckFeasibleOnEmpty(empty_, jobs_[index].request).outcome ==
        sched::Outcome::kNever) {
      Reject(index);
      return;
    }
    if (jobs_[index].after_ok.empty() && jobs_[index].after_any.empty()) {
      Enqueue(index, now);
    } else {
      phase_[index] = Phase::kWaiting;
      waiting_.push_back(index);
    }
  }

  void Reject(size_t index) {
    result_.jobs[index].rejected = true;
    phase_[index] = Phase::kFailed;
    settled_ = true;
  }

  // Into the queue (at the end: Pass restores the order).
  void Enqueue(size_t index, int64_t now) {
    phase_[index] = Phase::kPending;
    eligible_s_[index] = now;
    pending_.push_back(jobs_[index].request);
    pending_.back().submit_time += epoch_;  // relative, like every trace time
    pending_.back().predicted_runtime_s = Predict(index);
    result_.jobs[index].predicted_s = pending_.back().predicted_runtime_s;
    pending_index_.push_back(index);
  }

  // The history key of a job ("" = none: it plans with its limit).
  std::string HistoryKey(size_t index) const {
    const SimJob& job = jobs_[index];
    if (job.traits.user.empty()) return "";
    return prediction_.by_app ? job.traits.user + "\x1f" + job.app : job.traits.user;
  }

  int64_t Predict(size_t index) const {
    const SimJob& job = jobs_[index];
    switch (prediction_.mode) {
      case SimPrediction::Mode::kNone:
        return 0;
      case SimPrediction::Mode::kClairvoyant:
        return job.run_s;
      case SimPrediction::Mode::kUser2: {
        const std::string key = HistoryKey(index);
        return key.empty() ? 0 : predictor_.Predict(key, job.request.time_limit_s);
      }
    }
    return 0;
  }

  // Running jobs that outlived their prediction get the next, longer one (planning only).
  void ExtendPredictions(int64_t now) {
    for (size_t pos = 0; pos < snapshot_.running.size(); ++pos) {
      sched::RunningJob& r = snapshot_.running[pos];
      const size_t index = running_index_[pos];
      const int64_t predicted = result_.jobs[index].predicted_s;
      const int64_t limit = jobs_[index].request.time_limit_s;
      if (predicted <= 0 || r.planned_end > epoch_ + now) continue;
      r.planned_end = sched::PredictedEnd(r.start_time, predicted, limit, epoch_ + now);
    }
  }

  // Moves the waiting jobs whose dependencies are met into the queue; drops those that can
  // never be met (an afterok job failed).
  void Admit(int64_t now) {
    size_t kept = 0;
    for (size_t index : waiting_) {
      const SimJob& job = jobs_[index];
      bool met = true, never = false;
      for (size_t dep : job.after_ok) {
        never = never || phase_[dep] == Phase::kFailed;
        met = met && phase_[dep] == Phase::kCompleted;
      }
      for (size_t dep : job.after_any) {
        met = met && (phase_[dep] == Phase::kCompleted || phase_[dep] == Phase::kFailed);
      }
      if (never) {
        phase_[index] = Phase::kFailed;
        result_.jobs[index].reason = "DependencyNeverSatisfied";
        settled_ = true;
      } else if (met) {
        Enqueue(index, now);
      } else {
        waiting_[kept++] = index;
      }
    }
    waiting_.resize(kept);
  }

  // Charges the running jobs and those that ended at this event time (the last accrual
  // was at the previous event time).
  void AccrueUsage(int64_t now) {
    std::vector<PriorityPass::Run> ran;
    for (size_t index : running_index_) {
      ran.push_back({index, result_.jobs[index].start_s, -1});
    }
    ran.insert(ran.end(), ended_.begin(), ended_.end());
    ended_.clear();
    priority_->Accrue(now, jobs_, ran);
  }

  // One scheduler call. True when another round is due at this time: jobs were preempted
  // or settled in ways that other jobs wait for.
  Expected<bool> Pass(int64_t now) {
    if (priority_) {
      priority_->Order(now, jobs_, running_index_, eligible_s_, &pending_, &pending_index_);
    } else if (!std::is_sorted(pending_index_.begin(), pending_index_.end())) {
      Reorder(FcfsOrder());  // requeued or released jobs were appended
    }
    if (prediction_.mode != SimPrediction::Mode::kNone) ExtendPredictions(now);
    if (prediction_.mode == SimPrediction::Mode::kUser2) {  // with the runs ended since
      for (size_t pos = 0; pos < pending_.size(); ++pos) {
        pending_[pos].predicted_runtime_s = Predict(pending_index_[pos]);
      }
    }
    const std::vector<size_t> queue = scheduler_->ConsideredOrder(pending_, epoch_ + now);
    if (!std::is_sorted(queue.begin(), queue.end())) Reorder(queue);  // queue_order
    if (!preemptors_.empty()) Reorder(sched::PreemptorsFirst(pending_, preemptors_));
    // The requests offered (positions in pending_): all, or those the throttles admit.
    std::vector<sched::JobRequest> admitted;
    std::vector<size_t> admitted_pos;
    if (throttled_) {
      sched::ArrayThrottle throttle;
      for (size_t pos = 0; pos < pending_.size(); ++pos) {
        const SimJob& job = jobs_[pending_index_[pos]];
        if (throttle.Admit(job.array_job_id, job.array_throttle,
                           [&] { return array_running_[job.array_job_id]; })) {
          admitted.push_back(pending_[pos]);
          admitted_pos.push_back(pos);
        } else {
          result_.jobs[pending_index_[pos]].reason = sched::kReasonArrayTaskLimit;
        }
      }
    }
    const std::vector<sched::JobRequest>& offered = throttled_ ? admitted : pending_;
    if (!snapshot_.limits.empty()) GatherLimitRuns(now);
    ++result_.stats.passes;
    result_.stats.max_pending =
        std::max<int64_t>(result_.stats.max_pending, static_cast<int64_t>(offered.size()));
    sched::Plan plan = scheduler_->Schedule(snapshot_, offered, epoch_ + now);
    if (plan.decisions.size() != offered.size()) {
      return Internal(fmt::format("scheduler returned {} decisions for {} pending jobs",
                                  plan.decisions.size(), offered.size()));
    }
    settled_ = false;
    std::vector<char> gone(pending_.size(), 0);
    for (size_t i = 0; i < offered.size(); ++i) {
      sched::Decision& decision = plan.decisions[i];
      const size_t pos = throttled_ ? admitted_pos[i] : i;
      const size_t index = pending_index_[pos];
      if (decision.job_id != offered[i].job_id) {
        return Internal(fmt::format("scheduler decision {} is for job {}, expected job {}", i,
                                    decision.job_id, offered[i].job_id));
      }
      if (decision.outcome == sched::Outcome::kStartNow) {
        RETURN_IF_ERROR(Start(index, offered[i], std::move(decision.alloc), now));
        gone[pos] = 1;
      } else if (decision.outcome == sched::Outcome::kNever) {
        Reject(index);
        gone[pos] = 1;
      } else {
        result_.jobs[index].reason = decision.reason;
      }
    }
    size_t kept = 0;
    for (size_t pos = 0; pos < pending_.size(); ++pos) {
      if (gone[pos]) continue;
      if (kept != pos) {
        pending_[kept] = std::move(pending_[pos]);
        pending_index_[kept] = pending_index_[pos];
      }
      ++kept;
    }
    pending_.resize(kept);
    pending_index_.resize(kept);
    bool preempted = false;
    preemptors_.clear();
    for (const sched::Preemption& p : plan.preemptions) {
      preemptors_.insert(p.preemptor);
      for (int64_t victim : p.victims) {
        auto it = index_of_.find(victim);
        if (it == index_of_.end() || running_pos_[it->second] < 0) {
          return Internal(fmt::format("preemption victim {} is not running", victim));
        }
        RETURN_IF_ERROR(Preempt(it->second, now));
        preempted = true;
      }
    }
    return preempted || (settled_ && !waiting_.empty());
  }

  // What the running jobs hold in the limit scopes and how long they may still run (as the
  // controller gathers it before each pass).
  void GatherLimitRuns(int64_t now) {
    auto& runs = snapshot_.limits.running;
    runs.clear();
    for (size_t pos = 0; pos < snapshot_.running.size(); ++pos) {
      const sched::RunningJob& r = snapshot_.running[pos];
      const int64_t left = r.end_time > 0 ? std::max<int64_t>(0, r.end_time - (epoch_ + now)) : 0;
      runs.push_back({r.job_id, sched::TresOf(jobs_[running_index_[pos]].request), left});
    }
  }

  // Submit (= job index) order: FCFS without the priority pass.
  std::vector<size_t> FcfsOrder() const {
    std::vector<size_t> order(pending_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return pending_index_[a] < pending_index_[b]; });
    return order;
  }

  // pending_ and pending_index_ in `order` (positions).
  void Reorder(const std::vector<size_t>& order) {
    std::vector<sched::JobRequest> requests;
    std::vector<size_t> indexes;
    requests.reserve(order.size());
    indexes.reserve(order.size());
    for (size_t pos : order) {
      requests.push_back(std::move(pending_[pos]));
      indexes.push_back(pending_index_[pos]);
    }
    pending_ = std::move(requests);
    pending_index_ = std::move(indexes);
  }

  // Stops a victim now: back into the queue (requeue) or cancelled.
  Status Preempt(size_t index, int64_t now) {
    JobOutcome& outcome = result_.jobs[index];
    ++outcome.preempted;
    PreemptMode mode = preempt_mode_;
    const std::string& qos = jobs_[index].request.qos;
    if (auto rule = snapshot_.preempt.rules.find(qos);
        rule != snapshot_.preempt.rules.end() && rule->second.mode != PreemptMode::kCluster) {
      mode = rule->second.mode;
    }
    const bool requeue = mode == PreemptMode::kRequeue;
    RETURN_IF_ERROR(End(index, requeue ? Phase::kPending : Phase::kFailed, now));
    if (requeue) {
      outcome.start_s = outcome.end_s = -1;
      Enqueue(index, now);
    } else {
      outcome.end_s = now;
      settled_ = true;
    }
    return Status::Ok();
  }

  Status Start(size_t index, const sched::JobRequest& request, std::vector<NodeShare> alloc,
               int64_t now) {
    const SimJob& job = jobs_[index];
    RETURN_IF_ERROR(Apply(request, alloc));
    sched::RunningJob running;
    running.job_id = request.job_id;
    running.end_time = request.time_limit_s > 0 ? epoch_ + now + request.time_limit_s : 0;
    running.exclusive = request.exclusive;
    running.alloc = std::move(alloc);
    running.priority = request.priority;
    running.start_time = epoch_ + now;
    running.priority_tier = request.priority_tier;
    running.qos = request.qos;
    result_.jobs[index].predicted_s = request.predicted_runtime_s;
    if (request.predicted_runtime_s > 0) {
      running.planned_end = epoch_ + now + sched::PlannedRuntime(request);
    }
    running_pos_[index] = static_cast<int64_t>(snapshot_.running.size());
    running_index_.push_back(index);
    snapshot_.running.push_back(std::move(running));
    phase_[index] = Phase::kRunning;
    if (snapshot_.preempt.type != PreemptType::kNone && snapshot_.preempt.exempt_s > 0) {
      wakes_.insert(now + snapshot_.preempt.exempt_s);  // it may be a victim from then on
    }
    if (job.array_job_id != 0) ++array_running_[job.array_job_id];
    result_.jobs[index].start_s = now;
    result_.jobs[index].end_s = now + job.run_s;
    ends_.emplace(now + job.run_s, index);
    return Status::Ok();
  }

  // Marks `alloc` used, checking every resource is known and free.
  Status Apply(const sched::JobRequest& request, const std::vector<NodeShare>& alloc) {
    if (static_cast<int>(alloc.size()) < request.num_nodes) {
      return Internal(fmt::format("job {}: allocation has {} nodes, wants {}", request.job_id,
                                  alloc.size(), request.num_nodes));
    }
    for (const NodeShare& share : alloc) {
      auto it = node_index_.find(share.node);
      if (it == node_index_.end()) {
        return Internal(fmt::format("job {}: unknown node '{}'", request.job_id, share.node));
      }
      sched::Node& node = snapshot_.nodes[it->second];
      if (node.cpu_used.size() < static_cast<size_t>(node.cpus)) node.cpu_used.resize(node.cpus);
      for (int id : share.cpu_ids) {
        if (id < 0 || id >= node.cpus || node.cpu_used[id]) {
          return Internal(
              fmt::format("job {}: CPU {} of {} is not free", request.job_id, id, node.name));
        }
        node.cpu_used[id] = true;
      }
      for (int id : share.gpu_ids) {
        sched::Gpu* gpu = FindGpu(&node, id);
        if (gpu == nullptr || gpu->used) {
          return Internal(
              fmt::format("job {}: GPU {} of {} is not free", request.job_id, id, node.name));
        }
        gpu->used = true;
      }
      node.mem_used_mb += share.mem_mb;
      node.running_jobs += 1;
      if (request.exclusive) node.exclusive_held = true;
    }
    return Status::Ok();
  }

  // Frees what a running job holds; `phase` is what it becomes.
  Status End(size_t index, Phase phase, int64_t now) {
    const int64_t pos = running_pos_[index];
    if (pos < 0) return Internal(fmt::format("job {} ended but is not running", index));
    const sched::RunningJob& running = snapshot_.running[pos];
    for (const NodeShare& share : running.alloc) {
      sched::Node& node = snapshot_.nodes[node_index_.at(share.node)];
      for (int id : share.cpu_ids) node.cpu_used[id] = false;
      for (int id : share.gpu_ids) FindGpu(&node, id)->used = false;
      node.mem_used_mb -= share.mem_mb;
      node.running_jobs -= 1;
      if (running.exclusive) node.exclusive_held = false;
    }
    // Swap-remove: the last running job takes this one's slot.
    const size_t last = snapshot_.running.size() - 1;
    if (static_cast<size_t>(pos) != last) {
      snapshot_.running[pos] = std::move(snapshot_.running[last]);
      running_index_[pos] = running_index_[last];
      running_pos_[running_index_[pos]] = pos;
    }
    snapshot_.running.pop_back();
    running_index_.pop_back();
    running_pos_[index] = -1;
    phase_[index] = phase;
    if (jobs_[index].array_job_id != 0) --array_running_[jobs_[index].array_job_id];
    if (priority_) ended_.push_back({index, result_.jobs[index].start_s, now});
    if (phase == Phase::kCompleted && prediction_.mode == SimPrediction::Mode::kUser2) {
      if (std::string key = HistoryKey(index); !key.empty()) {
        predictor_.Record(key, now - result_.jobs[index].start_s);
      }
    }
    return Status::Ok();
  }

  const std::vector<SimJob>& jobs_;
  sched::Scheduler* scheduler_;
  ManualClock* clock_;
  const int64_t epoch_;
  const PreemptMode preempt_mode_;
  const SimPrediction prediction_;
  sched::RuntimePredictor predictor_;  // kUser2: the runs that ended so far
  sched::ClusterSnapshot snapshot_;
  const sched::ClusterSnapshot empty_;
  std::unordered_map<std::string, size_t> node_index_;  // lookups only, never iterated
  std::unordered_map<int64_t, size_t> index_of_;        // request job id -> job index
  std::optional<PriorityPass> priority_;                // multifactor priority, when enabled
  std::vector<PriorityPass::Run> ended_;                // runs ended since the last accrual
  std::vector<sched::JobRequest> pending_;              // in priority order (FCFS: job id)
  std::vector<size_t> pending_index_;                   // job index of each pending_ entry
  std::vector<size_t> waiting_;                         // job indexes waiting for dependencies
  std::vector<Phase> phase_;                            // by job index
  std::vector<int64_t> eligible_s_;  // by job index: when it last joined the queue
  bool throttled_ = false;           // some array has a throttle
  // Times a pass is due although no job starts or ends (the controller's periodic pass
  // would come then): reservation starts and ends, --switches waits and PreemptExemptTime
  // running out.
  std::set<int64_t> wakes_;
  std::set<int64_t> preemptors_;  // job ids the last pass chose victims for
  bool settled_ = false;          // a job failed or was cancelled since the last pass
  std::unordered_map<int64_t, int64_t> array_running_;  // array job id -> running tasks
  std::vector<int64_t> running_pos_;   // job index -> position in snapshot_.running
  std::vector<size_t> running_index_;  // position in snapshot_.running -> job index
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends_;
  SimResult result_;
};

}  // namespace

Expected<SimResult> Simulate(const sched::ClusterSnapshot& cluster, const std::vector<SimJob>& jobs,
                             sched::Scheduler* scheduler, ManualClock* clock,
                             const SimPriority& priority, PreemptMode preempt_mode,
                             const SimPrediction& prediction) {
  for (size_t i = 1; i < jobs.size(); ++i) {
    if (jobs[i].submit_s < jobs[i - 1].submit_s) {
      return InvalidArgument("simulator jobs must be in submit order");
    }
  }
  return Replay(cluster, jobs, scheduler, clock, priority, preempt_mode, prediction).Run();
}

}  // namespace sluice::sim
