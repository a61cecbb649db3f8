// Event-driven trace replay: see simulator.h.
#include "sim/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_map>

#include "sched/placement.h"

namespace sluice::sim {

namespace {

using sched::NodeShare;

sched::Gpu* FindGpu(sched::Node* node, int index) {
  for (sched::Gpu& gpu : node->gpus) {
    if (gpu.index == index) return &gpu;
  }
  return nullptr;
}

class Replay {
 public:
  Replay(const sched::ClusterSnapshot& cluster, const std::vector<SimJob>& jobs,
         sched::Scheduler* scheduler, ManualClock* clock, const SimPriority& priority)
      : jobs_(jobs),
        scheduler_(scheduler),
        clock_(clock),
        epoch_(clock->Now()),
        snapshot_(cluster),
        empty_(sched::EmptyCluster(cluster)) {
    for (size_t i = 0; i < snapshot_.nodes.size(); ++i) node_index_[snapshot_.nodes[i].name] = i;
    result_.jobs.resize(jobs.size());
    running_pos_.assign(jobs.size(), -1);
    if (priority.enabled) priority_.emplace(priority, cluster, epoch_);
  }

  Expected<SimResult> Run() {
    size_t next_submit = 0;
    while (next_submit < jobs_.size() || !ends_.empty()) {
      int64_t now = NextEventTime(next_submit);
      clock_->Set(epoch_ + now);
      while (!ends_.empty() && ends_.top().first == now) {
        RETURN_IF_ERROR(End(ends_.top().second));
        ends_.pop();
      }
      while (next_submit < jobs_.size() && jobs_[next_submit].submit_s == now) {
        Submit(next_submit++);
      }
      if (priority_) AccrueUsage(now);
      if (!pending_.empty()) RETURN_IF_ERROR(Pass(now));
    }
    return std::move(result_);
  }

 private:
  int64_t NextEventTime(size_t next_submit) const {
    int64_t t = ends_.empty() ? INT64_MAX : ends_.top().first;
    if (next_submit < jobs_.size()) t = std::min(t, jobs_[next_submit].submit_s);
    return t;
  }

  void Submit(size_t index) {
    const sched::JobRequest& request = jobs_[index].request;
    if (sched::CheckFeasibleOnEmpty(empty_, request).outcome == sched::Outcome::kNever) {
      result_.jobs[index].rejected = true;
      return;
    }
    pending_.push_back(request);
    pending_index_.push_back(index);
  }

  // Charges the running jobs and those that ended at this event time (the last accrual
  // was at the previous event time).
  void AccrueUsage(int64_t now) {
    std::vector<PriorityPass::Run> ran;
    for (size_t index : running_index_) {
      ran.push_back({index, result_.jobs[index].start_s, -1});
    }
    for (size_t index : ended_) {
      ran.push_back({index, result_.jobs[index].start_s, result_.jobs[index].end_s});
    }
    ended_.clear();
    priority_->Accrue(now, jobs_, ran);
  }

  Status Pass(int64_t now) {
    if (priority_) priority_->Order(now, jobs_, running_index_, &pending_, &pending_index_);
    ++result_.stats.passes;
    result_.stats.max_pending =
        std::max<int64_t>(result_.stats.max_pending, static_cast<int64_t>(pending_.size()));
    sched::Plan plan = scheduler_->Schedule(snapshot_, pending_, epoch_ + now);
    if (plan.decisions.size() != pending_.size()) {
      return Internal(fmt::format("scheduler returned {} decisions for {} pending jobs",
                                  plan.decisions.size(), pending_.size()));
    }
    size_t kept = 0;
    for (size_t i = 0; i < pending_.size(); ++i) {
      sched::Decision& decision = plan.decisions[i];
      const size_t index = pending_index_[i];
      if (decision.job_id != pending_[i].job_id) {
        return Internal(fmt::format("scheduler decision {} is for job {}, expected job {}", i,
                                    decision.job_id, pending_[i].job_id));
      }
      if (decision.outcome == sched::Outcome::kStartNow) {
        RETURN_IF_ERROR(Start(index, std::move(decision.alloc), now));
      } else if (decision.outcome == sched::Outcome::kNever) {
        result_.jobs[index].rejected = true;
      } else {
        if (kept != i) {
          pending_[kept] = std::move(pending_[i]);
          pending_index_[kept] = index;
        }
        ++kept;
      }
    }
    pending_.resize(kept);
    pending_index_.resize(kept);
    return Status::Ok();
  }

  Status Start(size_t index, std::vector<NodeShare> alloc, int64_t now) {
    const SimJob& job = jobs_[index];
    RETURN_IF_ERROR(Apply(job.request, alloc));
    sched::RunningJob running;
    running.job_id = job.request.job_id;
    running.end_time = job.request.time_limit_s > 0 ? epoch_ + now + job.request.time_limit_s : 0;
    running.exclusive = job.request.exclusive;
    running.alloc = std::move(alloc);
    running_pos_[index] = static_cast<int64_t>(snapshot_.running.size());
    running_index_.push_back(index);
    snapshot_.running.push_back(std::move(running));
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

  Status End(size_t index) {
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
    if (priority_) ended_.push_back(index);
    return Status::Ok();
  }

  const std::vector<SimJob>& jobs_;
  sched::Scheduler* scheduler_;
  ManualClock* clock_;
  const int64_t epoch_;
  sched::ClusterSnapshot snapshot_;
  const sched::ClusterSnapshot empty_;
  std::unordered_map<std::string, size_t> node_index_;  // lookups only, never iterated
  std::optional<PriorityPass> priority_;                // multifactor priority, when enabled
  std::vector<size_t> ended_;                           // jobs ended since the last accrual
  std::vector<sched::JobRequest> pending_;              // in priority order (FCFS: submit)
  std::vector<size_t> pending_index_;                   // job index of each pending_ entry
  std::vector<int64_t> running_pos_;            // job index -> position in snapshot_.running
  std::vector<size_t> running_index_;           // position in snapshot_.running -> job index
  using EndEvent = std::pair<int64_t, size_t>;  // (end time, job index); ties by index
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends_;
  SimResult result_;
};

}  // namespace

Expected<SimResult> Simulate(const sched::ClusterSnapshot& cluster, const std::vector<SimJob>& jobs,
                             sched::Scheduler* scheduler, ManualClock* clock,
                             const SimPriority& priority) {
  for (size_t i = 1; i < jobs.size(); ++i) {
    if (jobs[i].submit_s < jobs[i - 1].submit_s) {
      return InvalidArgument("simulator jobs must be in submit order");
    }
  }
  return Replay(cluster, jobs, scheduler, clock, priority).Run();
}

}  // namespace sluice::sim
