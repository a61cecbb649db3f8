// Randomised invariants of the backfill schedulers (fixed seeds): feasibility agrees with
// CheckFeasible; started jobs get what they asked for; no resource is over-allocated at
// any time (running jobs, starts and reservations together); a backfilled job never
// delays a reservation (re-planning with the started jobs running reproduces every
// reservation no later); determinism; and an event-driven replay to completion.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sched/random_cases.h"
#include "sched/scheduler.h"

namespace sluice::sched {
namespace {

using testing::RandomJob;
using testing::RandomSnapshot;
using testing::Rng;
using Policy = SchedulerConfig::Policy;
constexpr int64_t kNow = 1000;

const Node& NodeNamed(const ClusterSnapshot& s, const std::string& name) {
  for (const Node& node : s.nodes)
    if (node.name == name) return node;
  ADD_FAILURE() << "no node " << name;
  return s.nodes[0];
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Resources held on one node during [start, end).
struct Hold {
  int64_t start, end;
  int cpus;
  int64_t mem;
  std::vector<int> gpus;
  bool exclusive;
  int jobs;
};

int64_t Duration(const JobRequest& job, const SchedulerConfig& c) {
  return job.time_limit_s > 0 ? job.time_limit_s : (c.bf_window_s > 0 ? c.bf_window_s : 1 << 30);
}

// Everything held over time, per node: current usage (listed running jobs release at
// their end), plus the plan's starts and reservations.
std::map<std::string, std::vector<Hold>> Holds(const ClusterSnapshot& s,
                                               const std::vector<JobRequest>& pending,
                                               const Plan& plan, const SchedulerConfig& c) {
  constexpr int64_t kEver = int64_t{1} << 60;
  std::map<std::string, std::vector<Hold>> holds;
  for (const Node& node : s.nodes) {
    Hold h{kNow, kEver, 0, node.mem_used_mb, {}, node.exclusive_held, node.running_jobs};
    for (int i = 0; i < static_cast<int>(node.cpu_used.size()); ++i) h.cpus += node.cpu_used[i];
    for (const Gpu& g : node.gpus)
      if (g.used) h.gpus.push_back(g.index);
    holds[node.name].push_back(h);
  }
  for (const RunningJob& r : s.running) {  // releases, as negative holds
    if (r.end_time == 0) continue;
    for (const NodeShare& sh : r.alloc) {
      Hold h{std::max(r.end_time, kNow + 1),
             kEver,
             -static_cast<int>(sh.cpu_ids.size()),
             -sh.mem_mb,
             sh.gpu_ids,
             r.exclusive,
             -1};
      holds[sh.node].push_back(h);
    }
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    const Decision& d = plan.decisions[i];
    const JobRequest& job = pending[i];
    const bool started = d.outcome == Outcome::kStartNow;
    const int64_t start = started ? kNow : d.planned_start;
    for (const NodeShare& sh : started ? d.alloc : d.planned_alloc) {
      const Node& node = NodeNamed(s, sh.node);
      int cpus = job.exclusive ? node.cpus : job.cpus_per_node;
      holds[sh.node].push_back(
          {start, start + Duration(job, c), cpus, sh.mem_mb, sh.gpu_ids, job.exclusive, 1});
    }
  }
  return holds;
}

// At each time usage can grow (now and every hold's start), nothing is over-allocated.
void CheckNoOverAllocation(const ClusterSnapshot& s, const std::vector<JobRequest>& pending,
                           const Plan& plan, const SchedulerConfig& c) {
  for (const auto& [name, holds] : Holds(s, pending, plan, c)) {
    const Node& node = NodeNamed(s, name);
    for (const Hold& at : holds) {
      const int64_t t = at.start;
      int cpus = 0, jobs = 0, excl = 0;
      int64_t mem = 0;
      std::map<int, int> gpus;
      for (const Hold& h : holds) {
        if (h.start > t || h.end <= t) continue;
        const int sign = h.jobs < 0 ? -1 : 1;
        cpus += h.cpus;
        mem += h.mem;
        jobs += h.jobs;
        if (h.exclusive) excl += sign;
        for (int g : h.gpus) gpus[g] += sign;
      }
      SCOPED_TRACE(name + " at " + std::to_string(t));
      EXPECT_LE(cpus, node.cpus) << "CPUs over-allocated";
      EXPECT_LE(mem, node.mem_mb) << "memory over-allocated";
      for (auto [g, n] : gpus) EXPECT_LE(n, 1) << "GPU " << g << " over-allocated";
      if (excl > 0) EXPECT_EQ(jobs, 1) << "exclusive node shared";
    }
  }
}

// A started job's shares match its request and its filters.
void CheckStarted(const ClusterSnapshot& s, const JobRequest& job, const Decision& d) {
  std::set<std::string> required(job.required_nodes.begin(), job.required_nodes.end());
  EXPECT_EQ(d.alloc.size(), std::max<size_t>(job.num_nodes, required.size()));
  std::set<std::string> used;
  for (const NodeShare& sh : d.alloc) {
    const Node& node = NodeNamed(s, sh.node);
    EXPECT_TRUE(used.insert(sh.node).second);
    EXPECT_TRUE(node.available);
    EXPECT_TRUE(job.allowed_nodes.empty() || Contains(job.allowed_nodes, sh.node));
    EXPECT_FALSE(Contains(job.excluded_nodes, sh.node));
    EXPECT_EQ(sh.ntasks, job.tasks_per_node);
    EXPECT_EQ(sh.cpu_ids.size(),
              static_cast<size_t>(job.exclusive ? node.cpus : job.cpus_per_node));
    for (int id : sh.cpu_ids) {
      EXPECT_TRUE(id >= 0 && id < node.cpus);
      EXPECT_FALSE(id < static_cast<int>(node.cpu_used.size()) && node.cpu_used[id]);
    }
    EXPECT_EQ(sh.mem_mb, job.exclusive ? node.mem_mb : job.mem_per_node_mb);
    if (!job.exclusive) EXPECT_EQ(sh.gpu_ids.size(), static_cast<size_t>(job.gpus_per_node));
    for (int g : sh.gpu_ids) {
      auto it = std::find_if(node.gpus.begin(), node.gpus.end(),
                             [&](const Gpu& x) { return x.index == g; });
      ASSERT_NE(it, node.gpus.end());
      EXPECT_FALSE(it->used);
      if (!job.exclusive && !job.gpu_type.empty()) EXPECT_EQ(it->type, job.gpu_type);
    }
  }
  for (const std::string& r : required) EXPECT_TRUE(used.count(r)) << "missing " << r;
}

bool Same(const Decision& a, const Decision& b) {
  return a.job_id == b.job_id && a.outcome == b.outcome && a.alloc == b.alloc &&
         a.reason == b.reason && a.planned_start == b.planned_start &&
         a.planned_alloc == b.planned_alloc;
}

SchedulerConfig RandomConfig(Rng& rng) {
  SchedulerConfig c;
  c.policy = rng.Chance(50) ? Policy::kEasy : Policy::kConservative;
  c.bf_window_s = rng.Chance(70) ? 86400 : rng.Int(20, 200);
  c.bf_resolution_s = rng.Chance(50) ? 1 : rng.Int(2, 30);
  c.bf_max_job_test = rng.Chance(50) ? 0 : rng.Int(1, 4);
  return c;
}

std::vector<JobRequest> RandomQueue(Rng& rng, const ClusterSnapshot& s, int max_jobs) {
  std::vector<JobRequest> queue;
  const int n = rng.Int(1, max_jobs);
  for (int j = 0; j < n; ++j) {
    JobRequest job = RandomJob(rng, s);
    job.job_id = 100 + j;
    job.tasks_per_node = rng.Int(1, 2);
    job.time_limit_s = rng.Chance(10) ? 0 : rng.Int(1, 120);
    if (rng.Chance(80)) job.required_nodes.clear();
    if (rng.Chance(50)) job.num_nodes = 1;
    queue.push_back(job);
  }
  return queue;
}

// The snapshot after the plan's starts: they hold their resources and run to their limit.
ClusterSnapshot AfterStarts(ClusterSnapshot s, const std::vector<JobRequest>& pending,
                            const Plan& plan, int64_t now) {
  for (size_t i = 0; i < pending.size(); ++i) {
    const Decision& d = plan.decisions[i];
    if (d.outcome != Outcome::kStartNow) continue;
    ApplyAllocation(&s, d.alloc, pending[i].exclusive);
    const int64_t end = pending[i].time_limit_s > 0 ? now + pending[i].time_limit_s : 0;
    s.running.push_back({pending[i].job_id, end, pending[i].exclusive, d.alloc});
  }
  return s;
}

void CheckPlan(const ClusterSnapshot& s, const std::vector<JobRequest>& pending,
               const SchedulerConfig& c, const Plan& plan) {
  ASSERT_EQ(plan.decisions.size(), pending.size());
  int reservations = 0, tested = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    const Decision& d = plan.decisions[i];
    const JobRequest& job = pending[i];
    SCOPED_TRACE("job " + std::to_string(job.job_id));
    EXPECT_EQ(d.job_id, job.job_id);
    const bool never = CheckFeasible(s, job).outcome == Outcome::kNever;
    EXPECT_EQ(d.outcome == Outcome::kNever, never);
    if (d.outcome == Outcome::kStartNow) {
      CheckStarted(s, job, d);
      EXPECT_TRUE(d.reason.empty());
    }
    if (d.outcome != Outcome::kPending) continue;
    EXPECT_TRUE(d.alloc.empty());
    EXPECT_TRUE(d.reason == "Resources" || d.reason == "Priority") << d.reason;
    tested += d.reason == "Resources";
    if (d.planned_start == 0) {
      EXPECT_TRUE(d.planned_alloc.empty());
      continue;
    }
    ++reservations;
    EXPECT_EQ(d.reason, "Resources");
    EXPECT_GT(d.planned_start, kNow);
    EXPECT_LT(d.planned_start, kNow + c.bf_window_s);
    if (c.bf_resolution_s > 1) EXPECT_EQ(d.planned_start % c.bf_resolution_s, 0);
    EXPECT_EQ(
        d.planned_alloc.size(),
        std::max<size_t>(
            job.num_nodes,
            std::set<std::string>(job.required_nodes.begin(), job.required_nodes.end()).size()));
  }
  if (c.policy == Policy::kEasy) EXPECT_LE(reservations, 1);
  if (c.policy == Policy::kConservative && c.bf_max_job_test > 0)
    EXPECT_LE(tested, c.bf_max_job_test);
  CheckNoOverAllocation(s, pending, plan, c);
}

// Re-planning with the started jobs running (and without them in the queue) places every
// reservation no later, and starts nothing new.
void CheckNoDelay(const ClusterSnapshot& s, const std::vector<JobRequest>& pending,
                  const SchedulerConfig& c, const Plan& plan) {
  std::vector<JobRequest> rest;
  std::vector<const Decision*> before;
  for (size_t i = 0; i < pending.size(); ++i) {
    if (plan.decisions[i].outcome == Outcome::kStartNow) continue;
    rest.push_back(pending[i]);
    before.push_back(&plan.decisions[i]);
  }
  Plan again = MakeScheduler(c)->Schedule(AfterStarts(s, pending, plan, kNow), rest, kNow);
  for (size_t i = 0; i < rest.size(); ++i) {
    SCOPED_TRACE("job " + std::to_string(rest[i].job_id));
    EXPECT_NE(again.decisions[i].outcome, Outcome::kStartNow);
    if (before[i]->planned_start == 0) continue;
    EXPECT_GT(again.decisions[i].planned_start, 0) << "reservation lost";
    EXPECT_LE(again.decisions[i].planned_start, before[i]->planned_start) << "delayed";
  }
  // Without the lower-priority jobs at all, each reservation is the same.
  for (size_t i = 0; i < pending.size(); ++i) {
    if (plan.decisions[i].planned_start == 0) continue;
    std::vector<JobRequest> prefix(pending.begin(), pending.begin() + i + 1);
    Plan alone = MakeScheduler(c)->Schedule(s, prefix, kNow);
    EXPECT_TRUE(Same(alone.decisions[i], plan.decisions[i]));
  }
}

TEST(BackfillPropertyTest, RandomClustersAndQueues) {
  int started = 0, reserved = 0, priority = 0, never = 0;
  for (uint32_t seed = 1; seed <= 6000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed * 31 + 7);
    ClusterSnapshot s = RandomSnapshot(rng, 6, kNow);
    SchedulerConfig c = RandomConfig(rng);
    std::vector<JobRequest> pending = RandomQueue(rng, s, 16);
    Plan plan = MakeScheduler(c)->Schedule(s, pending, kNow);
    CheckPlan(s, pending, c, plan);
    Plan again = MakeScheduler(c)->Schedule(s, pending, kNow);
    for (size_t i = 0; i < plan.decisions.size(); ++i)
      EXPECT_TRUE(Same(plan.decisions[i], again.decisions[i])) << "nondeterministic";
    CheckNoDelay(s, pending, c, plan);
    // Until FIFO first blocks, backfill decides exactly as FIFO (same placement rules).
    Plan fifo = MakeFifoScheduler()->Schedule(s, pending, kNow);
    for (size_t i = 0; i < pending.size(); ++i) {
      if (fifo.decisions[i].outcome == Outcome::kPending) break;
      EXPECT_TRUE(Same(fifo.decisions[i], plan.decisions[i])) << "differs from FIFO at " << i;
    }
    for (const Decision& d : plan.decisions) {
      started += d.outcome == Outcome::kStartNow;
      never += d.outcome == Outcome::kNever;
      reserved += d.planned_start > 0;
      priority += d.reason == "Priority";
    }
    if (HasFailure()) return;
  }
  // The generator exercises every outcome substantially.
  EXPECT_GT(started, 6000);
  EXPECT_GT(reserved, 5000);
  EXPECT_GT(priority, 5000);
  EXPECT_GT(never, 10000);
}

// Frees a running job's resources (it ended).
void Finish(ClusterSnapshot* s, const RunningJob& job) {
  for (const NodeShare& sh : job.alloc) {
    for (Node& node : s->nodes) {
      if (node.name != sh.node) continue;
      for (int id : sh.cpu_ids) node.cpu_used[id] = false;
      node.mem_used_mb -= sh.mem_mb;
      for (Gpu& g : node.gpus)
        if (std::count(sh.gpu_ids.begin(), sh.gpu_ids.end(), g.index)) g.used = false;
      node.running_jobs -= 1;
      if (job.exclusive) node.exclusive_held = false;
    }
  }
}

// Event-driven replay: schedule, start, advance to the next job end, repeat. Jobs run
// exactly their time limit, so the queue head's reservation must never slip, and every
// job that can ever run does.
TEST(BackfillPropertyTest, EventDrivenReplay) {
  int runs_with_reservation = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed * 17 + 3);
    ClusterSnapshot s = RandomSnapshot(rng, 4, kNow);
    for (Node& node : s.nodes) {  // start empty and all available
      node = Node{node.name, node.cpus, node.mem_mb, node.gpus, node.features};
      node.cpu_used.assign(node.cpus, false);
      for (Gpu& g : node.gpus) g.used = false;
    }
    s.running.clear();
    SchedulerConfig c = RandomConfig(rng);
    std::vector<JobRequest> pending = RandomQueue(rng, s, 12);
    for (JobRequest& job : pending) job.time_limit_s = rng.Int(1, 100);
    auto scheduler = MakeScheduler(c);
    int64_t now = kNow;
    int64_t head_id = -1, head_start = 0;  // the queue head's reservation last pass
    for (int step = 0; step < 200 && !pending.empty(); ++step) {
      Plan plan = scheduler->Schedule(s, pending, now);
      std::vector<JobRequest> rest;
      int64_t next_head = -1, next_start = 0;
      bool head_seen = false;
      for (size_t i = 0; i < pending.size(); ++i) {
        const Decision& d = plan.decisions[i];
        if (d.job_id == head_id) {
          if (d.outcome == Outcome::kStartNow)
            EXPECT_LE(now, head_start) << "head started late";
          else
            EXPECT_TRUE(d.planned_start > 0 && d.planned_start <= head_start) << "head slipped";
        }
        if (d.outcome == Outcome::kStartNow) {
          CheckStarted(s, pending[i], d);
          ApplyAllocation(&s, d.alloc, pending[i].exclusive);
          s.running.push_back(
              {d.job_id, now + pending[i].time_limit_s, pending[i].exclusive, d.alloc});
          continue;
        }
        if (d.outcome == Outcome::kNever) continue;
        if (!head_seen && d.planned_start > 0) {
          next_head = d.job_id, next_start = d.planned_start;
          ++runs_with_reservation;
        }
        head_seen = true;
        rest.push_back(pending[i]);
      }
      pending = std::move(rest);
      head_id = next_head, head_start = next_start;
      if (s.running.empty()) break;
      now = std::min_element(
                s.running.begin(), s.running.end(),
                [](const RunningJob& a, const RunningJob& b) { return a.end_time < b.end_time; })
                ->end_time;
      for (size_t k = 0; k < s.running.size();) {
        if (s.running[k].end_time > now) {
          ++k;
          continue;
        }
        Finish(&s, s.running[k]);
        s.running.erase(s.running.begin() + k);
      }
      if (HasFailure()) return;
    }
    EXPECT_TRUE(pending.empty()) << pending.size() << " runnable jobs never started";
    if (HasFailure()) return;
  }
  EXPECT_GT(runs_with_reservation, 1000);
}

}  // namespace
}  // namespace sluice::sched
