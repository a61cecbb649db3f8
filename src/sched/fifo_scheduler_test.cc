#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::NodeNames;
using Names = std::vector<std::string>;

Plan RunFifo(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending) {
  return MakeFifoScheduler()->Schedule(snapshot, pending, 1000);
}

TEST(FifoSchedulerTest, EmptyQueue) { EXPECT_TRUE(RunFifo(MakeCluster(2), {}).decisions.empty()); }

TEST(FifoSchedulerTest, StartsJobsInOrderOnWorkingCopy) {
  auto snapshot = MakeCluster(2);
  Plan plan = RunFifo(snapshot, {MakeJob(10, 1, 6), MakeJob(11, 1, 4), MakeJob(12, 1, 2)});
  ASSERT_EQ(plan.decisions.size(), 3u);
  EXPECT_EQ(plan.decisions[0].job_id, 10);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc), (Names{"node1"}));
  // 11 does not fit beside 10 on node1 (6+4 > 8), so it goes to node2.
  EXPECT_EQ(NodeNames(plan.decisions[1].alloc), (Names{"node2"}));
  // 12 fills node1's last two CPUs.
  EXPECT_EQ(NodeNames(plan.decisions[2].alloc), (Names{"node1"}));
  EXPECT_EQ(plan.decisions[2].alloc[0].cpu_ids, (std::vector<int>{6, 7}));
  EXPECT_TRUE(plan.decisions[2].reason.empty());
}

TEST(FifoSchedulerTest, BlockedHeadHoldsBackLaterJobs) {
  auto snapshot = MakeCluster(2);
  snapshot.nodes[0].cpu_used.assign(8, true);
  Plan plan =
      RunFifo(snapshot, {MakeJob(1, 1, 1), MakeJob(2, 2, 1), MakeJob(3, 1, 1), MakeJob(4, 1, 1)});
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[1].reason, "Resources");
  EXPECT_TRUE(plan.decisions[1].alloc.empty());
  // 3 and 4 would fit on node2, but strict FIFO keeps them behind job 2.
  for (int i : {2, 3}) {
    EXPECT_EQ(plan.decisions[i].outcome, Outcome::kPending);
    EXPECT_EQ(plan.decisions[i].reason, "Priority");
    EXPECT_TRUE(plan.decisions[i].alloc.empty());
  }
}

TEST(FifoSchedulerTest, NeverFittingJobsDoNotBlock) {
  auto snapshot = MakeCluster(2);
  JobRequest bad_constraint = MakeJob(3);
  bad_constraint.constraint = "(a100";
  Plan plan = RunFifo(snapshot,
                      {MakeJob(1, 3, 1), MakeJob(2, 1, 1, 0, 8), bad_constraint, MakeJob(4, 2, 1)});
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kNever);
  EXPECT_EQ(plan.decisions[0].reason, "Requested node configuration is not available");
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kNever);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kNever);
  EXPECT_EQ(plan.decisions[2].reason, "BadConstraints");
  EXPECT_EQ(plan.decisions[3].outcome, Outcome::kStartNow);
  for (int i : {0, 1, 2}) EXPECT_TRUE(plan.decisions[i].alloc.empty());
}

TEST(FifoSchedulerTest, NeverFittingAfterBlockStillNever) {
  auto snapshot = MakeCluster(1);
  snapshot.nodes[0].available = false;  // drained: pending on Resources, not never
  Plan plan = RunFifo(snapshot, {MakeJob(1), MakeJob(2, 2, 1), MakeJob(3)});
  EXPECT_EQ(plan.decisions[0].reason, "Resources");
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kNever);
  EXPECT_EQ(plan.decisions[2].reason, "Priority");
}

TEST(FifoSchedulerTest, ExclusiveJobsInOnePass) {
  auto snapshot = MakeCluster(2);
  JobRequest excl = MakeJob(1);
  excl.exclusive = true;
  JobRequest excl2 = excl;
  excl2.job_id = 2;
  Plan plan = RunFifo(snapshot, {excl, excl2, MakeJob(3)});
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc), (Names{"node1"}));
  EXPECT_EQ(NodeNames(plan.decisions[1].alloc), (Names{"node2"}));
  EXPECT_EQ(plan.decisions[2].reason, "Resources");
}

TEST(FifoSchedulerTest, ExclusiveWaitsForSharedJobsStartedThisPass) {
  auto snapshot = MakeCluster(1);
  JobRequest excl = MakeJob(2);
  excl.exclusive = true;
  Plan plan = RunFifo(snapshot, {MakeJob(1), excl});
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[1].reason, "Resources");
}

TEST(FifoSchedulerTest, DoesNotModifyInputSnapshot) {
  auto snapshot = MakeCluster(1);
  auto copy = snapshot;
  RunFifo(snapshot, {MakeJob(1, 1, 8, 100, 4)});
  EXPECT_EQ(snapshot.nodes[0].cpu_used, copy.nodes[0].cpu_used);
  EXPECT_EQ(snapshot.nodes[0].mem_used_mb, 0);
  EXPECT_FALSE(snapshot.nodes[0].gpus[0].used);
}

}  // namespace
}  // namespace sluice::sched
