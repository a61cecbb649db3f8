#include "ctld/components/step_resources.h"

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
  a->set_mem_mb(1000);
  return job;
}

StepRequest OneTask() {
  StepRequest r;
  r.set_job_id(7);
  r.set_ntasks(1);
  return r;
}

ActiveStep Holding(int id, std::vector<int> cpus, std::vector<int> gpus, bool overlap = false,
                   int64_t mem_mb = 0) {
  ActiveStep s;
  s.step_id = id;
  s.overlap = overlap;
  s.use.push_back({"node01", std::move(cpus), std::move(gpus), mem_mb});
  return s;
}

StepRequest ExactWithMem(int64_t mem_mb) {
  StepRequest r = OneTask();
  r.set_exact(true);
  r.set_mem_set(true);
  r.set_mem_per_node_mb(mem_mb);
  return r;
}

Expected<std::vector<StepNodeUse>> Pick(const StepRequest& r,
                                        const std::vector<ActiveStep>& running) {
  JobInfo job = OneNodeJob();
  auto layout = PlanStepLayout(job, r);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  return PickStepResources(job, *layout, r, running);
}

TEST(StepResources, FullyHeldNodesAreThoseWhoseEveryCpuAStepHolds) {
  JobInfo job = OneNodeJob();
  EXPECT_TRUE(FullyHeldNodes(job, {Holding(0, {0, 1, 2}, {})}).empty());
  EXPECT_TRUE(FullyHeldNodes(job, {Holding(0, {0, 1, 2, 3}, {}, /*overlap=*/true)}).empty());
  EXPECT_EQ(FullyHeldNodes(job, {Holding(0, {0, 1}, {}), Holding(1, {2, 3}, {})}),
            std::set<std::string>{"node01"});
}

TEST(StepResources, DefaultStepTakesEveryCpuAndFreeGpu) {
  auto use = Pick(OneTask(), {});
  ASSERT_TRUE(use.ok());
  EXPECT_EQ((*use)[0].cpu_ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ((*use)[0].gpu_ids, (std::vector<int>{0, 1}));
}

// Huge CPU counts per task or per GPU are refused; their products never wrap (GPUs per
// task: StepLayoutTest.ImpossibleRequestsAreRejected).
TEST(StepResources, HugePerTaskCountsAreRefusedNotWrapped) {
  StepRequest r = OneTask();
  r.set_exact(true);
  r.set_cpus_per_task(INT32_MAX);
  EXPECT_FALSE(Pick(r, {}).ok());
  r = OneTask();
  r.set_cpus_per_gpu(INT32_MAX);
  EXPECT_FALSE(Pick(r, {}).ok());
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

TEST(StepResources, StepWithoutMemHoldsNoneAndNeverWaitsForMemory) {
  StepRequest r = OneTask();
  r.set_exact(true);
  auto use = Pick(r, {Holding(0, {0}, {}, false, 1000)});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].mem_mb, 0);
}

TEST(StepResources, MemPerNodeIsTakenFromTheJobsMemory) {
  auto first = Pick(ExactWithMem(600), {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ((*first)[0].mem_mb, 600);
  // 400 MB left: a second 600 MB step waits, a 400 MB one fits.
  auto second = Pick(ExactWithMem(600), {Holding(0, {0}, {}, false, 600)});
  EXPECT_EQ(second.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(second.status().message(), kMsgNodesBusy);
  auto third = Pick(ExactWithMem(400), {Holding(0, {0}, {}, false, 600)});
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_EQ((*third)[0].mem_mb, 400);
  // Memory held by an --overlap step does not count.
  EXPECT_TRUE(Pick(ExactWithMem(600), {Holding(0, {0}, {}, true, 600)}).ok());
}

TEST(StepResources, MoreMemoryThanTheJobHasFails) {
  auto use = Pick(ExactWithMem(1001), {});
  EXPECT_EQ(use.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(use.status().message(), kMsgTaskMemory);
  // Even an --overlap step cannot exceed the job's memory.
  StepRequest r = ExactWithMem(2000);
  r.set_overlap(true);
  EXPECT_EQ(Pick(r, {}).status().message(), kMsgTaskMemory);
}

TEST(StepResources, MemPerCpuCountsTheStepsCpus) {
  StepRequest r = OneTask();
  r.set_cpus_per_task(2);
  r.set_mem_set(true);
  r.set_mem_per_cpu_mb(300);
  auto use = Pick(r, {});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].mem_mb, 600);
  r.set_cpus_per_task(4);  // 4 x 300 > 1000
  EXPECT_EQ(Pick(r, {}).status().message(), kMsgTaskMemory);
  // A default (whole-node) step asks for every job CPU: 4 x 300.
  StepRequest whole = OneTask();
  whole.set_mem_set(true);
  whole.set_mem_per_cpu_mb(300);
  EXPECT_EQ(Pick(whole, {}).status().message(), kMsgTaskMemory);
}

TEST(StepResources, ExplicitMemZeroTakesAllFreeMemory) {
  auto use = Pick(ExactWithMem(0), {Holding(0, {0}, {}, false, 300)});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].mem_mb, 700);
  EXPECT_EQ(Pick(ExactWithMem(0), {Holding(0, {0}, {}, false, 1000)}).status().code(),
            Code::kResourceExhausted);
}

TEST(StepResources, JobWithoutMemoryIsNotAccounted) {
  JobInfo job = OneNodeJob();
  job.mutable_alloc(0)->set_mem_mb(0);
  StepRequest r = ExactWithMem(5000);
  auto layout = PlanStepLayout(job, r);
  ASSERT_TRUE(layout.ok());
  auto use = PickStepResources(job, *layout, r, {Holding(0, {0}, {}, false, 0)});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].mem_mb, 0);
}

TEST(StepResources, CpusPerGpuSizesTheStepsCpus) {
  StepRequest r = OneTask();
  r.set_gpus_per_node(1);
  r.set_cpus_per_gpu(2);
  auto use = Pick(r, {});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].cpu_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ((*use)[0].gpu_ids, (std::vector<int>{0}));
  // A second such step fits beside it on the other GPU and the other two CPUs.
  auto second = Pick(r, {Holding(1, {0, 1}, {0})});
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ((*second)[0].cpu_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ((*second)[0].gpu_ids, (std::vector<int>{1}));
}

TEST(StepResources, CpusPerGpuWithoutGpuCountUsesTheNodesGpus) {
  StepRequest r = OneTask();
  r.set_cpus_per_gpu(2);
  auto use = Pick(r, {});
  ASSERT_TRUE(use.ok()) << use.status().message();
  EXPECT_EQ((*use)[0].cpu_ids.size(), 4u);
  r.set_cpus_per_gpu(3);  // 2 GPUs x 3 > 4 CPUs
  EXPECT_EQ(Pick(r, {}).status().message(), kMsgTooManyCpus);
  r.set_cpus_per_gpu(1);
  r.set_cpus_per_task(1);
  EXPECT_EQ(Pick(r, {}).status().message(), kMsgStepCpusPerGpu);
}

}  // namespace
}  // namespace sluice::ctld
