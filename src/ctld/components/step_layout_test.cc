#include "ctld/components/step_layout.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

JobInfo Job(std::vector<std::string> nodes, int ntasks_per_node, int gpus = 0) {
  JobInfo job;
  job.set_job_id(1);
  for (const auto& n : nodes) {
    NodeAlloc* a = job.add_alloc();
    a->set_node(n);
    for (int c = 0; c < 4; ++c) a->add_cpu_ids(c);
    for (int g = 0; g < gpus; ++g) a->add_gpu_ids(g);
    a->set_ntasks(ntasks_per_node);
  }
  return job;
}

StepRequest Req(int nodes, int ntasks, int npn = 0) {
  StepRequest r;
  r.set_nodes(nodes);
  r.set_ntasks(ntasks);
  r.set_ntasks_per_node(npn);
  return r;
}

TEST(StepLayoutTest, DefaultUsesTheJobsLayoutInHostlistOrder) {
  JobInfo job = Job({"node02", "node01"}, 2);
  job.mutable_spec()->set_ntasks_per_node(2);
  auto l = PlanStepLayout(job, StepRequest());
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(l->alloc_index, (std::vector<int>{1, 0}));
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{2, 2}));
  EXPECT_EQ(l->task_ids, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(l->task_node, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(l->ntasks, 4);
  EXPECT_EQ(l->ntasks_per_node, 2);
}

// Nodes whose CPUs other steps hold all go last, unless the step names its nodes:
// `srun -n1 --exclusive` steps of a -N4 job then run on four different nodes.
TEST(StepLayoutTest, BusyNodesGoLastUnlessNamed) {
  JobInfo job = Job({"n1", "n2", "n3"}, 1);
  auto l = PlanStepLayout(job, Req(0, 1), {"n1", "n2"});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n3"}));
  l = PlanStepLayout(job, Req(2, 2), {"n1"});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2", "n3"}));
  StepRequest named = Req(0, 1);
  named.set_nodelist("n1");
  l = PlanStepLayout(job, named, {"n1"});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1"}));
}

TEST(StepLayoutTest, BlockWithTasksPerNode) {
  auto l = PlanStepLayout(Job({"n1", "n2"}, 1), Req(2, 4, 2));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{2, 2}));
  EXPECT_EQ(l->task_ids, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  l = PlanStepLayout(Job({"n1", "n2"}, 1), Req(2, 3, 2));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{2, 1}));
}

TEST(StepLayoutTest, EvenSpreadFirstNodesTakeTheRemainder) {
  auto l = PlanStepLayout(Job({"n1", "n2", "n3"}, 1), Req(3, 7));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(l->task_node, (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
}

TEST(StepLayoutTest, NodesOnlyGivesOneTaskPerNode) {
  auto l = PlanStepLayout(Job({"n1", "n2", "n3"}, 4), Req(2, 0));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{1, 1}));
}

TEST(StepLayoutTest, FewTasksUseFewNodes) {
  auto l = PlanStepLayout(Job({"n1", "n2", "n3"}, 1), Req(0, 1));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1"}));
  l = PlanStepLayout(Job({"n1", "n2", "n3"}, 1), Req(3, 2));  // -n below -N lowers -N
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes.size(), 2u);
}

TEST(StepLayoutTest, CyclicDealsRanksRoundRobin) {
  StepRequest r = Req(2, 5);
  r.set_distribution("cyclic");
  auto l = PlanStepLayout(Job({"n1", "n2"}, 1), r);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks_per_node, (std::vector<int>{3, 2}));
  EXPECT_EQ(l->task_ids, (std::vector<std::vector<int>>{{0, 2, 4}, {1, 3}}));
  EXPECT_EQ(l->task_node, (std::vector<int>{0, 1, 0, 1, 0}));
}

TEST(StepLayoutTest, NodelistRestrictsTheStep) {
  StepRequest r;
  r.set_nodelist("n[2-3]");
  auto l = PlanStepLayout(Job({"n1", "n2", "n3"}, 1), r);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(l->alloc_index, (std::vector<int>{1, 2}));
}

TEST(StepLayoutTest, ImpossibleRequestsAreRejected) {
  JobInfo job = Job({"n1", "n2"}, 1, 2);
  EXPECT_EQ(PlanStepLayout(job, Req(3, 0)).status().message(), kMsgStepNodeConfig);
  EXPECT_EQ(PlanStepLayout(job, Req(2, 5, 2)).status().message(), kMsgStepNodeConfig);
  StepRequest r;
  r.set_nodelist("n9");
  EXPECT_EQ(PlanStepLayout(job, r).status().message(), kMsgStepNodeConfig);
  r = Req(1, 3);
  r.set_gpus_per_task(1);  // 3 tasks x 1 GPU on a node with 2
  EXPECT_FALSE(PlanStepLayout(job, r).ok());
  r = Req(1, 2);
  r.set_gpus_per_task(1);
  EXPECT_TRUE(PlanStepLayout(job, r).ok());
  EXPECT_FALSE(PlanStepLayout(job, Req(-1, 0)).ok());
  EXPECT_FALSE(PlanStepLayout(JobInfo(), StepRequest()).ok());
  // fuzz/regressions/client_request: tasks x GPUs per task past INT_MAX is refused, not wrapped.
  r = Req(1, 2);
  r.set_gpus_per_task(1758569286);
  EXPECT_EQ(PlanStepLayout(job, r).status().message(), kMsgStepNodeConfig);
}

}  // namespace
}  // namespace sluice::ctld
