#include <gtest/gtest.h>

#include "stepd/cpu_bind.h"
#include "stepd/step_env.h"

namespace sluice {
namespace {

StepLaunch TwoTaskLaunch() {
  StepLaunch l;
  l.add_task_ids(0);
  l.add_task_ids(1);
  for (int c = 0; c < 8; ++c) l.mutable_local()->add_cpu_ids(c);
  for (int g = 0; g < 4; ++g) l.mutable_local()->add_gpu_ids(g);
  l.set_step_resources(true);
  for (int c : {4, 5, 6, 7}) l.add_step_cpu_ids(c);
  for (int g : {2, 3}) l.add_step_gpu_ids(g);
  return l;
}

TEST(CpuBind, CoresGiveEachTaskItsSliceOfTheStepCpus) {
  StepLaunch l = TwoTaskLaunch();
  l.set_cpus_per_task(2);
  l.set_cpu_bind("verbose,cores");
  CpuBindPlan p0 = PlanCpuBind(l, 0), p1 = PlanCpuBind(l, 1);
  EXPECT_TRUE(p0.bind && p0.verbose);
  EXPECT_EQ(p0.cpus, (std::vector<int>{4, 5}));
  EXPECT_EQ(p1.cpus, (std::vector<int>{6, 7}));
  l.set_cpu_bind("q,map_cpu:3,1");
  EXPECT_EQ(PlanCpuBind(l, 1).cpus, std::vector<int>{1});
  EXPECT_FALSE(PlanCpuBind(l, 1).verbose);
  l.set_cpu_bind("none");
  EXPECT_FALSE(PlanCpuBind(l, 0).bind);
  l.clear_cpu_bind();
  EXPECT_FALSE(PlanCpuBind(l, 0).bind);
  EXPECT_EQ(CpuBindVerboseLine("node01", 3, 1, 42, "0x2"),
            "cpu-bind=MASK - node01, task  3  1 [42]: mask 0x2 set\n");
}

TEST(GpuBind, StepGpusAreSplitOrMappedPerTask) {
  StepLaunch l = TwoTaskLaunch();
  EXPECT_EQ(TaskGpus(l, 0), "2,3");  // no binding: all the step's GPUs
  l.set_gpus_per_task(1);
  EXPECT_EQ(TaskGpus(l, 0), "2");
  EXPECT_EQ(TaskGpus(l, 1), "3");
  l.set_gpu_bind("none");
  EXPECT_EQ(TaskGpus(l, 1), "2,3");
  l.set_gpu_bind("single:2");
  EXPECT_EQ(TaskGpus(l, 1), "2");
  l.set_gpu_bind("verbose,map_gpu:3,0");
  EXPECT_EQ(TaskGpus(l, 0), "3");
  EXPECT_EQ(TaskGpus(l, 1), "0");
  l.set_step_resources(false);  // older controller: the job's GPUs
  l.clear_gpu_bind();
  EXPECT_EQ(TaskGpus(l, 1), "1");
}

}  // namespace
}  // namespace sluice
