#include "sched/placement.h"

#include <gtest/gtest.h>

#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::MakeNode;
using testing::NodeNames;
using Names = std::vector<std::string>;

std::vector<NodeShare> Place(const ClusterSnapshot& snapshot, const JobRequest& job) {
  std::vector<NodeShare> alloc;
  EXPECT_TRUE(PlaceJob(snapshot, job, &alloc)) << "job " << job.job_id;
  return alloc;
}

bool Fits(const ClusterSnapshot& snapshot, const JobRequest& job) {
  std::vector<NodeShare> alloc(1);  // PlaceJob must clear it on failure
  bool ok = PlaceJob(snapshot, job, &alloc);
  if (!ok) {
    EXPECT_TRUE(alloc.empty());
  }
  return ok;
}

TEST(PlacementTest, SingleNodeLowestCpusFirst) {
  auto snapshot = MakeCluster(2);
  JobRequest job = MakeJob(1, 1, 3, 1000);
  job.tasks_per_node = 3;
  auto alloc = Place(snapshot, job);
  ASSERT_EQ(alloc.size(), 1u);
  EXPECT_EQ(alloc[0].node, "node1");
  EXPECT_EQ(alloc[0].cpu_ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(alloc[0].mem_mb, 1000);
  EXPECT_TRUE(alloc[0].gpu_ids.empty());
  EXPECT_EQ(alloc[0].ntasks, 3);
}

TEST(PlacementTest, SkipsUsedCpus) {
  auto snapshot = MakeCluster(1);
  snapshot.nodes[0].cpu_used = {true, false, true, false, false, true, true, true};
  auto alloc = Place(snapshot, MakeJob(1, 1, 3));
  EXPECT_EQ(alloc[0].cpu_ids, (std::vector<int>{1, 3, 4}));
  EXPECT_FALSE(Fits(snapshot, MakeJob(2, 1, 4)));
}

TEST(PlacementTest, TwoJobsOnOneNodeGetDisjointGpus) {
  auto snapshot = MakeCluster(1);
  auto a = Place(snapshot, MakeJob(1, 1, 2, 0, 2));
  EXPECT_EQ(a[0].gpu_ids, (std::vector<int>{0, 1}));
  ApplyAllocation(&snapshot, a, false);
  auto b = Place(snapshot, MakeJob(2, 1, 2, 0, 2));
  EXPECT_EQ(b[0].node, "node1");
  EXPECT_EQ(b[0].gpu_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ(b[0].cpu_ids, (std::vector<int>{2, 3}));
  ApplyAllocation(&snapshot, b, false);
  EXPECT_FALSE(Fits(snapshot, MakeJob(3, 1, 1, 0, 1)));
  EXPECT_TRUE(Fits(snapshot, MakeJob(4, 1, 1, 0, 0)));
}

TEST(PlacementTest, GpuIndicesNeedNotBeContiguousOrSorted) {
  ClusterSnapshot snapshot;
  Node node = MakeNode("n", 4, 1000);
  node.gpus = {{7, "a100", false}, {3, "a100", true}, {5, "a100", false}, {1, "a100", false}};
  snapshot.nodes.push_back(node);
  auto alloc = Place(snapshot, MakeJob(1, 1, 1, 0, 2));
  EXPECT_EQ(alloc[0].gpu_ids, (std::vector<int>{1, 5}));
}

TEST(PlacementTest, GpuTypes) {
  ClusterSnapshot snapshot;
  Node mixed = MakeNode("mixed", 8, 1000);
  mixed.gpus = {{0, "v100", false}, {1, "h100", false}, {2, "v100", false}, {3, "h100", false}};
  snapshot.nodes.push_back(MakeNode("a", 8, 1000, 4, "a100"));
  snapshot.nodes.push_back(mixed);
  JobRequest job = MakeJob(1, 1, 1, 0, 2);
  job.gpu_type = "h100";
  auto alloc = Place(snapshot, job);
  EXPECT_EQ(alloc[0].node, "mixed");
  EXPECT_EQ(alloc[0].gpu_ids, (std::vector<int>{1, 3}));
  job.gpus_per_node = 3;
  EXPECT_FALSE(Fits(snapshot, job));
  job.gpu_type = "";  // any type: first node
  EXPECT_EQ(Place(snapshot, job)[0].node, "a");
  job.gpu_type = "v100";
  job.gpus_per_node = 2;
  EXPECT_EQ(Place(snapshot, job)[0].gpu_ids, (std::vector<int>{0, 2}));
}

TEST(PlacementTest, Memory) {
  auto snapshot = MakeCluster(2);
  snapshot.nodes[0].mem_used_mb = 30000;
  auto alloc = Place(snapshot, MakeJob(1, 1, 1, 2001));
  EXPECT_EQ(alloc[0].node, "node2");
  EXPECT_EQ(Place(snapshot, MakeJob(2, 1, 1, 2000))[0].node, "node1");
  EXPECT_FALSE(Fits(snapshot, MakeJob(3, 1, 1, 32001)));
  EXPECT_FALSE(Fits(snapshot, MakeJob(4, 2, 1, 2001)));
}

TEST(PlacementTest, MultiNodeFirstFit) {
  auto snapshot = MakeCluster(4);
  snapshot.nodes[1].cpu_used.assign(8, true);
  auto alloc = Place(snapshot, MakeJob(1, 3, 4));
  EXPECT_EQ(NodeNames(alloc), (Names{"node1", "node3", "node4"}));
  for (const auto& share : alloc) EXPECT_EQ(share.cpu_ids.size(), 4u);
  EXPECT_FALSE(Fits(snapshot, MakeJob(2, 4, 1)));
}

TEST(PlacementTest, UnavailableNodesAreSkipped) {
  auto snapshot = MakeCluster(3);
  snapshot.nodes[0].available = false;
  EXPECT_EQ(NodeNames(Place(snapshot, MakeJob(1, 2, 1))), (Names{"node2", "node3"}));
  EXPECT_FALSE(Fits(snapshot, MakeJob(2, 3, 1)));
}

TEST(PlacementTest, ExclusiveTakesWholeIdleNode) {
  auto snapshot = MakeCluster(2);
  snapshot.nodes[0].cpu_used = {true};
  snapshot.nodes[0].running_jobs = 1;
  JobRequest job = MakeJob(1, 1, 1, 100, 1);
  job.exclusive = true;
  auto alloc = Place(snapshot, job);
  EXPECT_EQ(alloc[0].node, "node2");
  EXPECT_EQ(alloc[0].cpu_ids, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(alloc[0].mem_mb, 32000);
  EXPECT_EQ(alloc[0].gpu_ids, (std::vector<int>{0, 1, 2, 3}));
  ApplyAllocation(&snapshot, alloc, true);
  EXPECT_TRUE(snapshot.nodes[1].exclusive_held);
  EXPECT_EQ(snapshot.nodes[1].running_jobs, 1);
  // Nothing else fits on the exclusively held node, even a tiny job.
  EXPECT_EQ(Place(snapshot, MakeJob(2, 1, 1))[0].node, "node1");
  snapshot.nodes[0].cpu_used.assign(8, true);
  EXPECT_FALSE(Fits(snapshot, MakeJob(3, 1, 1)));
}

TEST(PlacementTest, ExclusiveHeldFlagAloneBlocksNode) {
  auto snapshot = MakeCluster(1);
  snapshot.nodes[0].exclusive_held = true;
  EXPECT_FALSE(Fits(snapshot, MakeJob(1)));
}

TEST(PlacementTest, ExclusiveNeedsNoRunningJobs) {
  auto snapshot = MakeCluster(1);
  snapshot.nodes[0].running_jobs = 1;  // e.g. a job using no CPUs bookkept yet
  JobRequest job = MakeJob(1);
  job.exclusive = true;
  EXPECT_FALSE(Fits(snapshot, job));
  snapshot.nodes[0].running_jobs = 0;
  EXPECT_TRUE(Fits(snapshot, job));
}

TEST(PlacementTest, AllowedNodesIsThePartition) {
  auto snapshot = MakeCluster(4);
  JobRequest job = MakeJob(1, 2, 1);
  job.allowed_nodes = {"node4", "node2"};
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"node2", "node4"}));
  job.num_nodes = 3;
  EXPECT_FALSE(Fits(snapshot, job));
}

TEST(PlacementTest, RequiredNodesAreAllUsed) {
  auto snapshot = MakeCluster(4);
  JobRequest job = MakeJob(1, 1, 1);
  job.required_nodes = {"node3", "node2"};
  // num_nodes grows to the nodelist's size; shares come in snapshot order.
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"node2", "node3"}));
  job.num_nodes = 3;  // one more, first fit among the rest
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"node1", "node2", "node3"}));
  job.required_nodes = {"node3", "node3"};  // duplicates count once
  job.num_nodes = 1;
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"node3"}));
}

TEST(PlacementTest, RequiredNodeBusyOrUnknownOrOutsidePartitionFails) {
  auto snapshot = MakeCluster(3);
  JobRequest job = MakeJob(1, 1, 1);
  job.required_nodes = {"node2"};
  snapshot.nodes[1].cpu_used.assign(8, true);
  EXPECT_FALSE(Fits(snapshot, job));
  snapshot.nodes[1].cpu_used.clear();
  EXPECT_TRUE(Fits(snapshot, job));
  job.allowed_nodes = {"node1", "node3"};
  EXPECT_FALSE(Fits(snapshot, job));
  job.allowed_nodes.clear();
  job.required_nodes = {"nosuch"};
  EXPECT_FALSE(Fits(snapshot, job));
  job.required_nodes = {"node2"};
  job.excluded_nodes = {"node2"};
  EXPECT_FALSE(Fits(snapshot, job));
  job.excluded_nodes.clear();
  snapshot.nodes[1].available = false;
  EXPECT_FALSE(Fits(snapshot, job));
}

TEST(PlacementTest, ExcludedNodes) {
  auto snapshot = MakeCluster(3);
  JobRequest job = MakeJob(1, 2, 1);
  job.excluded_nodes = {"node1"};
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"node2", "node3"}));
  job.excluded_nodes = {"node1", "node3"};
  EXPECT_FALSE(Fits(snapshot, job));
}

TEST(PlacementTest, Constraints) {
  ClusterSnapshot snapshot;
  snapshot.nodes.push_back(MakeNode("v", 8, 1000, 0, "", {"v100", "ib"}));
  snapshot.nodes.push_back(MakeNode("a", 8, 1000, 0, "", {"a100"}));
  snapshot.nodes.push_back(MakeNode("aib", 8, 1000, 0, "", {"a100", "ib"}));
  snapshot.nodes.push_back(MakeNode("h", 8, 1000, 0, "", {"h100", "ib"}));
  JobRequest job = MakeJob(1, 1, 1);
  job.constraint = "a100&ib";
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"aib"}));
  job.constraint = "h100|a100";
  job.num_nodes = 3;
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"a", "aib", "h"}));
  job.constraint = "(h100|a100)&ib";
  job.num_nodes = 2;
  EXPECT_EQ(NodeNames(Place(snapshot, job)), (Names{"aib", "h"}));
  job.constraint = "mi300";
  job.num_nodes = 1;
  EXPECT_FALSE(Fits(snapshot, job));
  job.constraint = "a100&";
  EXPECT_FALSE(Fits(snapshot, job));
}

TEST(PlacementTest, MalformedRequestsNeverFit) {
  auto snapshot = MakeCluster(2);
  JobRequest job = MakeJob(1);
  job.num_nodes = 0;
  EXPECT_FALSE(Fits(snapshot, job));
  job = MakeJob(1);
  job.cpus_per_node = 0;
  EXPECT_FALSE(Fits(snapshot, job));
  job = MakeJob(1);
  job.mem_per_node_mb = -5;
  EXPECT_FALSE(Fits(snapshot, job));
  job = MakeJob(1);
  job.gpus_per_node = -1;
  EXPECT_FALSE(Fits(snapshot, job));
  EXPECT_FALSE(Fits(ClusterSnapshot{}, MakeJob(1)));
}

TEST(PlacementTest, ApplyAllocationMarksResources) {
  auto snapshot = MakeCluster(2);
  std::vector<NodeShare> alloc = {{"node2", {1, 5}, 700, {3}, 2}, {"nosuch", {0}, 1, {}, 1}};
  ApplyAllocation(&snapshot, alloc, false);
  const Node& node = snapshot.nodes[1];
  EXPECT_EQ(node.cpu_used,
            (std::vector<bool>{false, true, false, false, false, true, false, false}));
  EXPECT_EQ(node.mem_used_mb, 700);
  EXPECT_TRUE(node.gpus[3].used);
  EXPECT_FALSE(node.gpus[0].used);
  EXPECT_EQ(node.running_jobs, 1);
  EXPECT_FALSE(node.exclusive_held);
  EXPECT_EQ(snapshot.nodes[0].running_jobs, 0);
}

TEST(FeasibilityTest, IgnoresCurrentUsageAndAvailability) {
  auto snapshot = MakeCluster(2);
  for (Node& node : snapshot.nodes) {
    node.available = false;
    node.cpu_used.assign(8, true);
    node.running_jobs = 3;
    node.exclusive_held = true;
  }
  Decision d = CheckFeasible(snapshot, MakeJob(9, 2, 8, 32000, 4));
  EXPECT_EQ(d.job_id, 9);
  EXPECT_EQ(d.outcome, Outcome::kStartNow);
  EXPECT_EQ(d.alloc.size(), 2u);
}

TEST(FeasibilityTest, NeverFitsGetsSlurmReason) {
  auto snapshot = MakeCluster(2);
  for (JobRequest job :
       {MakeJob(1, 3, 1), MakeJob(2, 1, 9), MakeJob(3, 1, 1, 32001), MakeJob(4, 1, 1, 0, 5)}) {
    Decision d = CheckFeasible(snapshot, job);
    EXPECT_EQ(d.outcome, Outcome::kNever) << job.job_id;
    EXPECT_EQ(d.reason, "Requested node configuration is not available");
    EXPECT_TRUE(d.alloc.empty());
  }
  JobRequest typed = MakeJob(5, 1, 1, 0, 1);
  typed.gpu_type = "h100";
  EXPECT_EQ(CheckFeasible(snapshot, typed).outcome, Outcome::kNever);
  JobRequest bad = MakeJob(6);
  bad.constraint = "a|";
  EXPECT_EQ(CheckFeasible(snapshot, bad).outcome, Outcome::kNever);
  EXPECT_EQ(CheckFeasible(snapshot, bad).reason, kReasonBadConstraints);
}

}  // namespace
}  // namespace sluice::sched
