// Heterogeneous jobs: the components start together or not at all, and a group that
// cannot start gets one common planned start that backfill then protects.
#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::NodeNames;
using testing::Timed;
constexpr int64_t kNow = 1000;

JobRequest Component(int64_t id, int64_t het_job_id, int het_size, int cpus, int64_t limit) {
  JobRequest j = MakeJob(id, 1, cpus);
  j.het_job_id = het_job_id;
  j.het_size = het_size;
  j.time_limit_s = limit;
  return j;
}

// EASY with one-second planning resolution.
std::unique_ptr<Scheduler> Easy() {
  SchedulerConfig config;
  config.bf_resolution_s = 1;
  return MakeScheduler(config);
}

ClusterSnapshot BusyFirstNode() { return testing::BusyFirstNode(kNow + 100); }

TEST(HetJobPlan, ComponentsStartTogetherOnDisjointResources) {
  Plan plan = Easy()->Schedule(
      MakeCluster(2),
      {Component(20, 20, 2, 8, 50), Timed(MakeJob(30, 1, 1), 50), Component(21, 20, 2, 8, 50)},
      kNow);
  ASSERT_EQ(plan.decisions.size(), 3u);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].job_id, 21);
  EXPECT_NE(NodeNames(plan.decisions[0].alloc), NodeNames(plan.decisions[2].alloc));
  // The group took both nodes whole: the one-CPU job between its components waits.
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
}

// One node is free now, the group needs two: nothing of it starts (no half-started job),
// both components plan the same start, and backfill may not delay it.
TEST(HetJobPlan, AGroupThatDoesNotFitWholeWaitsForOneCommonStart) {
  std::vector<JobRequest> queue = {Component(20, 20, 2, 8, 50), Component(21, 20, 2, 8, 50),
                                   Timed(MakeJob(30, 1, 4), 200), Timed(MakeJob(31, 1, 4), 50)};
  Plan plan = Easy()->Schedule(BusyFirstNode(), queue, kNow);
  ASSERT_EQ(plan.decisions.size(), 4u);
  for (int k : {0, 1}) {
    EXPECT_EQ(plan.decisions[k].outcome, Outcome::kPending);
    EXPECT_EQ(plan.decisions[k].reason, "Resources");
    EXPECT_EQ(plan.decisions[k].planned_start, kNow + 100);
  }
  EXPECT_NE(NodeNames(plan.decisions[0].planned_alloc), NodeNames(plan.decisions[1].planned_alloc));
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kPending);   // would run past the group's start
  EXPECT_EQ(plan.decisions[3].outcome, Outcome::kStartNow);  // ends before it
}

TEST(HetJobPlan, AnIncompleteOrImpossibleGroupStartsNothing) {
  Plan plan = Easy()->Schedule(MakeCluster(2),
                               {Component(20, 20, 3, 1, 50), Component(21, 20, 3, 1, 50)}, kNow);
  for (const Decision& d : plan.decisions) EXPECT_EQ(d.outcome, Outcome::kPending);
  plan = Easy()->Schedule(MakeCluster(2),
                          {Component(20, 20, 2, 1, 50), Component(21, 20, 2, 64, 50)}, kNow);
  for (const Decision& d : plan.decisions) EXPECT_EQ(d.outcome, Outcome::kNever);
}

}  // namespace
}  // namespace sluice::sched
