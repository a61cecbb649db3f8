#include "sched/switch_tree.h"

#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::NodeNames;

// node1-4 under leaf1, node5-8 under leaf2; both under spine.
ClusterSnapshot TwoLeaves() {
  ClusterSnapshot s = MakeCluster(8);
  s.switches = {{"leaf1", 2}, {"leaf2", 2}, {"spine", -1}};
  for (int i = 0; i < 8; ++i) s.nodes[i].leaf_switch = i < 4 ? 0 : 1;
  return s;
}

TEST(SwitchTree, PicksTheLowestSwitchWithEnoughNodes) {
  SwitchTree tree = SwitchTree::Build(TwoLeaves());
  std::vector<int> chosen;
  // Candidates in preference order: 2 free under leaf1, 3 under leaf2.
  ASSERT_TRUE(tree.Pick({2, 3, 4, 6, 7}, 3, 0, &chosen));
  EXPECT_EQ(chosen, (std::vector<int>{4, 6, 7}));
  // Best fit among leaves: a 2-node job takes the leaf with exactly 2 free.
  ASSERT_TRUE(tree.Pick({2, 3, 4, 6, 7}, 2, 0, &chosen));
  EXPECT_EQ(chosen, (std::vector<int>{2, 3}));
  // 5 nodes need the spine; leaves with most candidates first.
  ASSERT_TRUE(tree.Pick({2, 3, 4, 6, 7}, 5, 0, &chosen));
  EXPECT_EQ(tree.LeafCount(chosen), 2);
  EXPECT_FALSE(tree.Pick({2, 3, 4, 6, 7}, 6, 0, &chosen));
}

TEST(SwitchTree, MaxLeavesBoundsTheSpread) {
  SwitchTree tree = SwitchTree::Build(TwoLeaves());
  std::vector<int> chosen;
  EXPECT_FALSE(tree.Pick({2, 3, 4, 6, 7}, 4, 1, &chosen));
  ASSERT_TRUE(tree.Pick({2, 3, 4, 6, 7}, 4, 2, &chosen));
  EXPECT_EQ(chosen.size(), 4u);
}

TEST(SwitchTree, NodesWithoutASwitchAndCycles) {
  ClusterSnapshot s = TwoLeaves();
  s.nodes[7].leaf_switch = -1;
  s.switches[2].parent = 0;  // a cycle leaf1 -> spine -> leaf1 must not hang
  SwitchTree tree = SwitchTree::Build(s);
  std::vector<int> chosen;
  ASSERT_TRUE(tree.Pick({0, 7}, 2, 0, &chosen));
  EXPECT_EQ(chosen, (std::vector<int>{0, 7}));
  EXPECT_EQ(tree.LeafCount(chosen), 2);
}

TEST(TopologyPlacement, MultiNodeJobStaysUnderOneLeaf) {
  ClusterSnapshot s = TwoLeaves();
  // node1 and node2 busy: first fit would span node3,node4,node5; leaf2 has 4 free nodes.
  std::vector<JobRequest> busy = {MakeJob(1, 2, 8)};
  Plan first = MakeScheduler({})->Schedule(s, busy, 0);
  ASSERT_EQ(first.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(first.decisions[0].alloc), (std::vector<std::string>{"node1", "node2"}));
  ApplyAllocation(&s, first.decisions[0].alloc, false);
  Plan plan = MakeScheduler({})->Schedule(s, {MakeJob(2, 3, 8)}, 0);
  ASSERT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc),
            (std::vector<std::string>{"node5", "node6", "node7"}));
}

TEST(TopologyPlacement, SwitchesWaitsThenTakesWhatItCan) {
  ClusterSnapshot s = TwoLeaves();
  for (int i : {0, 1, 2, 4, 5})
    ApplyAllocation(&s, {{s.nodes[i].name, {0, 1, 2, 3, 4, 5, 6, 7}, 0, {}, 1}}, false);
  JobRequest job = MakeJob(9, 3, 1);
  job.max_switches = 1;
  job.submit_time = 100;
  job.switches_wait_s = 60;
  Plan waiting = MakeScheduler({})->Schedule(s, {job}, 130);
  EXPECT_EQ(waiting.decisions[0].outcome, Outcome::kPending);
  Plan after = MakeScheduler({})->Schedule(s, {job}, 161);
  ASSERT_EQ(after.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(after.decisions[0].alloc),
            (std::vector<std::string>{"node4", "node7", "node8"}));
}

TEST(TopologyPlacement, SwitchLimitIsPerJobNotPerShape) {
  ClusterSnapshot s = TwoLeaves();
  for (int i : {0, 1, 2, 4, 5})
    ApplyAllocation(&s, {{s.nodes[i].name, {0, 1, 2, 3, 4, 5, 6, 7}, 0, {}, 1}}, false);
  JobRequest limited = MakeJob(1, 2, 1);
  limited.max_switches = 1;
  limited.switches_wait_s = 600;
  // Same shape otherwise; free: node4 (leaf1), node7 and node8 (leaf2).
  JobRequest spread = MakeJob(2, 3, 1);
  JobRequest limited3 = MakeJob(3, 3, 1);
  limited3.max_switches = 1;
  limited3.switches_wait_s = 600;
  Plan plan = MakeScheduler({})->Schedule(s, {limited3, spread}, 0);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kPending);
  ASSERT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(plan.decisions[1].alloc),
            (std::vector<std::string>{"node4", "node7", "node8"}));
  // A 2-node job with the limit fits under leaf2.
  plan = MakeScheduler({})->Schedule(s, {limited}, 0);
  ASSERT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc), (std::vector<std::string>{"node7", "node8"}));
}

TEST(Packing, SmallJobsFillAPartlyUsedNodeBeforeIdleOnes) {
  ClusterSnapshot s = MakeCluster(3);  // 8 CPUs, 4 GPUs each
  ApplyAllocation(&s, {{"node3", {0}, 0, {0}, 1}}, false);
  Plan plan = MakeScheduler({})->Schedule(
      s, {MakeJob(1, 1, 1, 0, 1), MakeJob(2, 1, 1, 0, 2), MakeJob(3, 1, 1, 0, 4)}, 0);
  ASSERT_EQ(plan.decisions.size(), 3u);
  // The 1- and 2-GPU jobs share node3; the whole-node job still finds node1 empty.
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc), (std::vector<std::string>{"node3"}));
  EXPECT_EQ(NodeNames(plan.decisions[1].alloc), (std::vector<std::string>{"node3"}));
  EXPECT_EQ(NodeNames(plan.decisions[2].alloc), (std::vector<std::string>{"node1"}));
}

TEST(Packing, GpusComeFromOneNvlinkIsland) {
  ClusterSnapshot s = MakeCluster(1);
  for (Gpu& g : s.nodes[0].gpus) {  // {0,1} and {2,3} linked pairs
    g.links.assign(4, 0);
    g.links[g.index ^ 1] = 4;
  }
  ApplyAllocation(&s, {{"node1", {0}, 0, {0}, 1}}, false);
  Plan plan = MakeScheduler({})->Schedule(s, {MakeJob(1, 1, 1, 0, 2)}, 0);
  ASSERT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[0].alloc[0].gpu_ids, (std::vector<int>{2, 3}));
}

}  // namespace
}  // namespace sluice::sched
