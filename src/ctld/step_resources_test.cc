#include "ctld/step_resources.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

// One node, CPUs 0-3, GPUs 0-1.
JobInfo OneNodeJob() {
  JobInfo job;
  job.set_job_id(7);
  NodeAlloc* a = job.add_alloc();
  a->set_node("node01");
  for (int c = 0; c < 4; ++c) a->add_cpu_ids(c);
  a->add_gpu_ids(0);
  a->add_gpu_ids(1);
  a->set_ntasks(1);
  return job;
}

StepRequest OneTask() {
  StepRequest r;
  r.set_job_id(7);
  r.set_ntasks(1);
  return r;
}

ActiveStep Holding(int id, std::vector<int> cpus, std::vector<int> gpus, bool overlap = false) {
  ActiveStep s;
  s.step_id = id;
  s.overlap = overlap;
  s.use.push_back({"node01", std::move(cpus), std::move(gpus)});
  return s;
}

Expected<std::vector<StepNodeUse>> Pick(const StepRequest& r, const std::vector<ActiveStep>& running) {
  JobInfo job = OneNodeJob();
  auto layout = PlanStepLayout(job, r);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  return PickStepResources(job, *layout, r, running);
}

TEST(StepResources, DefaultStepTakesEveryCpuAndFreeGpu) {
  auto use = Pick(OneTask(), {});
  ASSERT_TRUE(use.ok());
  EXPECT_EQ((*use)[0].cpu_ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ((*use)[0].gpu_ids, (std::vector<int>{0, 1}));
}

TEST(StepResources, ExactStepsShareTheNodeAndGetDisjointGpus) {
  StepRequest r = OneTask();
  r.set_exact(true);
  r.set_gpus_per_task(1);
  auto first = Pick(r, {});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)[0].cpu_ids, std::vector<int>{0});
  EXPECT_EQ((*first)[0].gpu_ids, std::vector<int>{0});
  auto second = Pick(r, {Holding(0, {0}, {0})});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)[0].cpu_ids, std::vector<int>{1});
  EXPECT_EQ((*second)[0].gpu_ids, std::vector<int>{1});
  auto third = Pick(r, {Holding(0, {0}, {0}), Holding(1, {1}, {1})});
  EXPECT_EQ(third.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(third.status().message(), kMsgNodesBusy);
}

TEST(StepResources, CpusPerTaskImpliesExact) {
  StepRequest r = OneTask();
  r.set_cpus_per_task(2);
  auto use = Pick(r, {Holding(0, {0, 1}, {})});
  ASSERT_TRUE(use.ok());
  EXPECT_EQ((*use)[0].cpu_ids, (std::vector<int>{2, 3}));
  r.set_cpus_per_task(8);
  EXPECT_EQ(Pick(r, {}).status().message(), kMsgTooManyCpus);
}

TEST(StepResources, DefaultStepWaitsForAnyHeldCpu) {
  EXPECT_EQ(Pick(OneTask(), {Holding(0, {3}, {})}).status().code(), Code::kResourceExhausted);
}

TEST(StepResources, OverlapNeverWaitsAndOverlappingStepsHoldNothing) {
  StepRequest r = OneTask();
  r.set_overlap(true);
  auto use = Pick(r, {Holding(0, {0, 1, 2, 3}, {0, 1})});
  ASSERT_TRUE(use.ok());
  EXPECT_EQ((*use)[0].cpu_ids.size(), 4u);
  // A running --overlap step does not block a normal one.
  EXPECT_TRUE(Pick(OneTask(), {Holding(0, {0, 1, 2, 3}, {0, 1}, true)}).ok());
}

TEST(StepResources, ImplicitGpusNeverWaitExplicitOnesDo) {
  StepRequest exact = OneTask();
  exact.set_exact(true);
  auto use = Pick(exact, {Holding(0, {0}, {0, 1})});
  ASSERT_TRUE(use.ok());  // asked for no GPU: gets none of the held ones
  EXPECT_TRUE((*use)[0].gpu_ids.empty());
  exact.set_gpus_per_node(1);
  EXPECT_EQ(Pick(exact, {Holding(0, {0}, {0, 1})}).status().code(), Code::kResourceExhausted);
  exact.set_gpus_per_node(3);
  EXPECT_EQ(Pick(exact, {}).status().message(), kMsgStepNodeConfig);
}

}  // namespace
}  // namespace sluice::ctld
