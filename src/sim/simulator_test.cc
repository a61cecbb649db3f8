// Tests for the event-driven replay: event order, what the scheduler is shown, outcomes,
// contract checks on the scheduler, determinism.
#include "sim/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

namespace sluice::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kEpoch = 5000;

sched::ClusterSnapshot Cluster(int nodes, int cpus) {
  sched::ClusterSnapshot cluster;
  for (int i = 1; i <= nodes; ++i) {
    sched::Node node;
    node.name = "n" + std::to_string(i);
    node.cpus = cpus;
    cluster.nodes.push_back(node);
  }
  return cluster;
}

SimJob Job(int64_t id, int64_t submit, int64_t run, int64_t limit, int nodes, int cpus) {
  SimJob job;
  job.id = std::to_string(id);
  job.submit_s = submit;
  job.run_s = run;
  job.request.job_id = id;
  job.request.submit_time = submit;
  job.request.time_limit_s = limit;
  job.request.num_nodes = nodes;
  job.request.cpus_per_node = cpus;
  job.cpus = int64_t{nodes} * cpus;
  return job;
}

struct Call {
  int64_t now;
  std::vector<int64_t> pending;
  std::vector<std::pair<int64_t, int64_t>> running;  // (job id, end_time)
};

// FIFO underneath; records every call.
class RecordingScheduler : public sched::Scheduler {
 public:
  sched::Plan Schedule(const sched::ClusterSnapshot& snapshot,
                       const std::vector<sched::JobRequest>& pending, int64_t now) override {
    Call call{now, {}, {}};
    for (const auto& job : pending) call.pending.push_back(job.job_id);
    for (const auto& job : snapshot.running) call.running.emplace_back(job.job_id, job.end_time);
    std::sort(call.running.begin(), call.running.end());
    calls.push_back(call);
    return fifo_->Schedule(snapshot, pending, now);
  }
  std::vector<Call> calls;

 private:
  std::unique_ptr<sched::Scheduler> fifo_ = sched::MakeFifoScheduler();
};

// Returns whatever `plan` makes of the input.
class ScriptedScheduler : public sched::Scheduler {
 public:
  using Fn = std::function<sched::Plan(const std::vector<sched::JobRequest>&)>;
  explicit ScriptedScheduler(Fn fn) : fn_(std::move(fn)) {}
  sched::Plan Schedule(const sched::ClusterSnapshot&, const std::vector<sched::JobRequest>& pending,
                       int64_t) override {
    return fn_(pending);
  }

 private:
  Fn fn_;
};

TEST(Simulator, ReplaysEventsAndShowsTheSchedulerEstimates) {
  // 2 nodes x 4 CPUs. Job 1 (8 CPUs) runs 10 s of a 30 s limit; job 2 waits for it; job 3
  // is submitted exactly when job 1 ends and must see the freed nodes in the same pass.
  std::vector<SimJob> jobs = {Job(1, 0, 10, 30, 2, 4), Job(2, 3, 5, 5, 1, 4),
                              Job(3, 10, 5, 20, 1, 2)};
  RecordingScheduler scheduler;
  ManualClock clock(kEpoch);
  auto result = Simulate(Cluster(2, 4), jobs, &scheduler, &clock);
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->jobs.size(), 3u);
  EXPECT_EQ(result->jobs[0].start_s, 0);
  EXPECT_EQ(result->jobs[0].end_s, 10);  // actual run time, not the limit
  EXPECT_EQ(result->jobs[1].start_s, 10);
  EXPECT_EQ(result->jobs[1].end_s, 15);
  EXPECT_EQ(result->jobs[2].start_s, 10);
  EXPECT_EQ(result->stats.passes, 3);
  EXPECT_EQ(result->stats.max_pending, 2);

  ASSERT_EQ(scheduler.calls.size(), 3u);
  EXPECT_EQ(scheduler.calls[0].now, kEpoch);
  EXPECT_THAT(scheduler.calls[0].pending, ElementsAre(1));
  EXPECT_EQ(scheduler.calls[1].now, kEpoch + 3);
  EXPECT_THAT(scheduler.calls[1].pending, ElementsAre(2));  // only pending jobs
  // Running jobs carry start + time limit, the user's estimate.
  EXPECT_THAT(scheduler.calls[1].running, ElementsAre(std::make_pair(int64_t{1}, kEpoch + 30)));
  EXPECT_EQ(scheduler.calls[2].now, kEpoch + 10);
  EXPECT_THAT(scheduler.calls[2].pending, ElementsAre(2, 3));
  EXPECT_TRUE(scheduler.calls[2].running.empty());  // ends are processed before the pass
  EXPECT_EQ(clock.Now(), kEpoch + 15);
}

TEST(Simulator, SnapshotIsKeptIncrementally) {
  // Many short one-CPU jobs on one 2-CPU node: never more than 2 running at once.
  std::vector<SimJob> jobs;
  for (int i = 1; i <= 50; ++i) jobs.push_back(Job(i, i / 3, 1 + i % 4, 5, 1, 1));
  RecordingScheduler scheduler;
  ManualClock clock(0);
  auto result = Simulate(Cluster(1, 2), jobs, &scheduler, &clock);
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (const Call& call : scheduler.calls) EXPECT_LE(call.running.size(), 2u);
  // FIFO on one node with 2 CPUs: each job starts once its predecessor two back ended.
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_GE(result->jobs[i].start_s, jobs[i].submit_s);
    if (i >= 2) {
      EXPECT_GE(result->jobs[i].start_s,
                std::min(result->jobs[i - 1].end_s, result->jobs[i - 2].end_s));
    }
  }
}

TEST(Simulator, RejectsJobsThatCanNeverRun) {
  std::vector<SimJob> jobs = {Job(1, 0, 10, 10, 3, 1), Job(2, 0, 10, 10, 1, 9),
                              Job(3, 1, 10, 10, 2, 1)};
  RecordingScheduler scheduler;
  ManualClock clock(0);
  auto result = Simulate(Cluster(2, 8), jobs, &scheduler, &clock);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->jobs[0].rejected);
  EXPECT_TRUE(result->jobs[1].rejected);
  EXPECT_FALSE(result->jobs[2].rejected);
  EXPECT_EQ(result->jobs[2].start_s, 1);
  ASSERT_EQ(scheduler.calls.size(), 1u);  // nothing to schedule at t=0
  EXPECT_THAT(scheduler.calls[0].pending, ElementsAre(3));
}

TEST(Simulator, JobsLeftPendingNeverStartAndReplayEnds) {
  ScriptedScheduler idle([](const std::vector<sched::JobRequest>& pending) {
    sched::Plan plan;
    for (const auto& job : pending) {
      sched::Decision d;
      d.job_id = job.job_id;
      plan.decisions.push_back(d);
    }
    return plan;
  });
  ManualClock clock(0);
  auto result =
      Simulate(Cluster(1, 1), {Job(1, 0, 5, 5, 1, 1), Job(2, 4, 5, 5, 1, 1)}, &idle, &clock);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->jobs[0].start_s, -1);
  EXPECT_FALSE(result->jobs[0].rejected);
  EXPECT_EQ(result->jobs[1].start_s, -1);
}

TEST(Simulator, SchedulerContractViolationsAreErrors) {
  std::vector<SimJob> jobs = {Job(1, 0, 5, 5, 1, 1), Job(2, 0, 5, 5, 1, 1)};
  ManualClock clock(0);
  ScriptedScheduler short_plan([](const auto&) { return sched::Plan{}; });
  auto count = Simulate(Cluster(1, 2), jobs, &short_plan, &clock);
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "scheduler returned 0 decisions for 2 pending jobs");

  // Both jobs on CPU 0 of n1: over-allocation.
  ScriptedScheduler greedy([](const std::vector<sched::JobRequest>& pending) {
    sched::Plan plan;
    for (const auto& job : pending) {
      sched::Decision d;
      d.job_id = job.job_id;
      d.outcome = sched::Outcome::kStartNow;
      d.alloc.push_back(sched::NodeShare{"n1", {0}, 0, {}, 1});
      plan.decisions.push_back(d);
    }
    return plan;
  });
  auto over = Simulate(Cluster(1, 2), jobs, &greedy, &clock);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(), "job 2: CPU 0 of n1 is not free");

  ScriptedScheduler nowhere([](const std::vector<sched::JobRequest>& pending) {
    sched::Plan plan;
    for (const auto& job : pending) {
      sched::Decision d;
      d.job_id = job.job_id;
      d.outcome = sched::Outcome::kStartNow;
      d.alloc.push_back(sched::NodeShare{"n9", {0}, 0, {}, 1});
      plan.decisions.push_back(d);
    }
    return plan;
  });
  auto unknown = Simulate(Cluster(1, 2), jobs, &nowhere, &clock);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown node 'n9'"));

  std::vector<SimJob> unsorted = {Job(1, 5, 5, 5, 1, 1), Job(2, 0, 5, 5, 1, 1)};
  EXPECT_FALSE(Simulate(Cluster(1, 2), unsorted, &greedy, &clock).ok());
}

TEST(Simulator, GpuJobsHoldAndReleaseGpus) {
  sched::ClusterSnapshot cluster = Cluster(1, 8);
  for (int g = 0; g < 4; ++g) cluster.nodes[0].gpus.push_back(sched::Gpu{g, "a100", false, {}});
  std::vector<SimJob> jobs = {Job(1, 0, 10, 10, 1, 1), Job(2, 0, 10, 10, 1, 1),
                              Job(3, 0, 10, 10, 1, 1)};
  jobs[0].request.gpus_per_node = 3;
  jobs[1].request.gpus_per_node = 2;
  jobs[2].request.gpus_per_node = 1;
  RecordingScheduler scheduler;
  ManualClock clock(0);
  auto result = Simulate(cluster, jobs, &scheduler, &clock);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->jobs[0].start_s, 0);
  EXPECT_EQ(result->jobs[1].start_s, 10);  // FIFO: job 2 waits, job 3 behind it
  EXPECT_EQ(result->jobs[2].start_s, 10);
}

TEST(Simulator, IsDeterministic) {
  std::vector<SimJob> jobs;
  for (int i = 1; i <= 300; ++i) {
    jobs.push_back(Job(i, (i * 7) / 5, 1 + (i * 13) % 17, 20, 1 + i % 3, 1 + i % 4));
  }
  auto run = [&] {
    RecordingScheduler scheduler;
    ManualClock clock(0);
    auto result = Simulate(Cluster(4, 4), jobs, &scheduler, &clock);
    EXPECT_TRUE(result.ok());
    std::vector<int64_t> starts;
    for (const auto& outcome : result->jobs) starts.push_back(outcome.start_s);
    return starts;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace sluice::sim
