// Hand-computed backfill scenarios (EASY and conservative).
#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::NodeNames;
using testing::Timed;
using Names = std::vector<std::string>;
using Policy = SchedulerConfig::Policy;
constexpr int64_t kNow = 1000;

SchedulerConfig Config(Policy policy, int64_t resolution = 1, int64_t window = 86400) {
  SchedulerConfig config;
  config.policy = policy;
  config.bf_resolution_s = resolution;
  config.bf_window_s = window;
  return config;
}

ClusterSnapshot BusyFirstNode() { return testing::BusyFirstNode(kNow + 100); }

// A needs both nodes; B is short enough to finish before A's reservation; C is not;
// D has no time limit.
std::vector<JobRequest> Queue() {
  return {Timed(MakeJob(10, 2, 8), 50), Timed(MakeJob(11, 1, 4), 50), Timed(MakeJob(12, 1, 4), 200),
          MakeJob(13, 1, 4)};
}

TEST(BackfillTest, EasyShortJobBackfillsLongJobDoesNot) {
  Plan plan = MakeScheduler(Config(Policy::kEasy))->Schedule(BusyFirstNode(), Queue(), kNow);
  ASSERT_EQ(plan.decisions.size(), 4u);
  const Decision& a = plan.decisions[0];
  EXPECT_EQ(a.outcome, Outcome::kPending);
  EXPECT_EQ(a.reason, "Resources");
  EXPECT_EQ(a.planned_start, kNow + 100);
  EXPECT_EQ(NodeNames(a.planned_alloc), (Names{"node1", "node2"}));
  EXPECT_TRUE(a.alloc.empty());
  const Decision& b = plan.decisions[1];
  EXPECT_EQ(b.outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(b.alloc), (Names{"node2"}));
  EXPECT_EQ(b.alloc[0].cpu_ids, (std::vector<int>{0, 1, 2, 3}));
  for (int i : {2, 3}) {
    EXPECT_EQ(plan.decisions[i].outcome, Outcome::kPending);
    EXPECT_EQ(plan.decisions[i].reason, "Priority");
    EXPECT_EQ(plan.decisions[i].planned_start, 0);
  }
}

TEST(BackfillTest, ConservativeReservesEveryBlockedJob) {
  Plan plan =
      MakeScheduler(Config(Policy::kConservative))->Schedule(BusyFirstNode(), Queue(), kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  // C (200 s) cannot run before A; after A ends (kNow + 150) it takes node1 first-fit.
  EXPECT_EQ(plan.decisions[2].reason, "Resources");
  EXPECT_EQ(plan.decisions[2].planned_start, kNow + 150);
  EXPECT_EQ(NodeNames(plan.decisions[2].planned_alloc), (Names{"node1"}));
  // D (no limit: planned as the whole window) fits beside C on node1's other 4 CPUs.
  EXPECT_EQ(plan.decisions[3].reason, "Resources");
  EXPECT_EQ(plan.decisions[3].planned_start, kNow + 150);
}

TEST(BackfillTest, ConservativeMaxJobTestLimitsReservations) {
  SchedulerConfig config = Config(Policy::kConservative);
  config.bf_max_job_test = 1;
  Plan plan = MakeScheduler(config)->Schedule(BusyFirstNode(), Queue(), kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].reason, "Priority");
  EXPECT_EQ(plan.decisions[2].planned_start, 0);
}

TEST(BackfillTest, ResolutionRoundsReservationsUp) {
  Plan plan = MakeScheduler(Config(Policy::kEasy, 60))->Schedule(BusyFirstNode(), Queue(), kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, 1140);  // 1100 rounded up to a minute
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
}

TEST(BackfillTest, WindowBoundsPlanning) {
  Plan plan = MakeScheduler(Config(Policy::kEasy, 1, 50))->Schedule(BusyFirstNode(), Queue(), kNow);
  // A's earliest start (kNow + 100) is beyond the 50 s window: no reservation.
  EXPECT_EQ(plan.decisions[0].reason, "Resources");
  EXPECT_EQ(plan.decisions[0].planned_start, 0);
  EXPECT_TRUE(plan.decisions[0].planned_alloc.empty());
  // With nothing reserved, B and C start on node2; D then finds no room within the window.
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].alloc[0].cpu_ids, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(plan.decisions[3].reason, "Resources");
  EXPECT_EQ(plan.decisions[3].planned_start, 0);
}

// A long 1-GPU job may start beside a reservation when it uses a GPU the reservation
// does not need.
TEST(BackfillTest, BackfillUsesGpusTheReservationLeavesFree) {
  ClusterSnapshot s = MakeCluster(1);
  for (int g : {0, 1, 2}) s.nodes[0].gpus[g].used = true;
  s.nodes[0].cpu_used.assign(8, false);
  s.nodes[0].cpu_used[0] = true;
  s.nodes[0].running_jobs = 1;
  s.running.push_back({1, kNow + 100, false, {{"node1", {0}, 0, {0, 1, 2}, 1}}});
  std::vector<JobRequest> queue = {Timed(MakeJob(10, 1, 1, 0, 3), 60),
                                   Timed(MakeJob(11, 1, 1, 0, 1), 5000),
                                   Timed(MakeJob(12, 1, 1, 0, 1), 10)};
  Plan plan = MakeScheduler(Config(Policy::kEasy))->Schedule(s, queue, kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  ASSERT_EQ(plan.decisions[0].planned_alloc.size(), 1u);
  EXPECT_EQ(plan.decisions[0].planned_alloc[0].gpu_ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[1].alloc[0].gpu_ids, (std::vector<int>{3}));
  EXPECT_EQ(plan.decisions[1].alloc[0].cpu_ids, (std::vector<int>{1}));
  EXPECT_EQ(plan.decisions[2].reason, "Priority");  // no GPU left now
}

TEST(BackfillTest, ExclusiveJobWaitsForNodeToEmpty) {
  ClusterSnapshot s = BusyFirstNode();
  JobRequest excl = Timed(MakeJob(10, 2, 1), 30);
  excl.exclusive = true;
  Plan plan = MakeScheduler(Config(Policy::kEasy))
                  ->Schedule(s, {excl, Timed(MakeJob(11, 1, 1), 500)}, kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(plan.decisions[0].planned_alloc[0].gpu_ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan.decisions[1].reason, "Priority");  // one CPU would still delay it
}

TEST(BackfillTest, NeverFittingJobsAndNeverReleasingNodes) {
  ClusterSnapshot s = BusyFirstNode();
  s.running[0].end_time = 0;  // node1 is never released
  JobRequest bad = MakeJob(12);
  bad.constraint = "a&";
  Plan plan = MakeScheduler(Config(Policy::kConservative))
                  ->Schedule(s, {MakeJob(10, 3, 1), Timed(MakeJob(11, 2, 1), 10), bad}, kNow);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kNever);
  EXPECT_EQ(plan.decisions[0].reason, "Requested node configuration is not available");
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[1].reason, "Resources");
  EXPECT_EQ(plan.decisions[1].planned_start, 0);
  EXPECT_EQ(plan.decisions[2].reason, "BadConstraints");
}

TEST(BackfillTest, FifoPolicySelectsStrictFifo) {
  Plan plan = MakeScheduler(Config(Policy::kFifo))->Schedule(BusyFirstNode(), Queue(), kNow);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[1].reason, "Priority");
}

TEST(BackfillTest, NodelistAndPartitionAreHonoured) {
  ClusterSnapshot s = BusyFirstNode();
  JobRequest pinned = Timed(MakeJob(10, 1, 1), 10);
  pinned.required_nodes = {"node1"};
  JobRequest part = Timed(MakeJob(11, 1, 1), 10);
  part.allowed_nodes = {"node1"};
  Plan plan = MakeScheduler(Config(Policy::kConservative))->Schedule(s, {pinned, part}, kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(NodeNames(plan.decisions[0].planned_alloc), (Names{"node1"}));
  EXPECT_EQ(plan.decisions[1].planned_start, kNow + 100);  // 1 CPU each: both fit at once
}

}  // namespace
}  // namespace sluice::sched
