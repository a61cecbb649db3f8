// NormalizeJob on hostile numbers (regressions from fuzz/regressions/submit_request):
// products of counts must never overflow; oversize requests get Slurm's errors.
#include "ctld/validate.h"

#include <gtest/gtest.h>

#include <climits>

#include "ctld/controller_harness.h"

namespace sluice::ctld {
namespace {

JobInfo Job(const std::function<void(JobSpec*)>& edit) {
  JobInfo job;
  job.set_job_id(1);
  JobSpec* s = job.mutable_spec();
  s->set_script("#!/bin/sh\ntrue\n");
  edit(s);
  return job;
}

TEST(Validate, HugeCountsAreRejectedWithoutOverflow) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");
  auto reject = [&](const std::function<void(JobSpec*)>& edit) {
    JobInfo j = Job(edit);
    Status st = NormalizeJob(c, &j);
    EXPECT_FALSE(st.ok()) << j.spec().DebugString();
    return st.message();
  };
  // The fuzzer's input: 2 tasks per node x INT_MAX cpus per task.
  EXPECT_EQ(reject([](JobSpec* s) {
              s->set_ntasks_per_node(2);
              s->set_cpus_per_task(INT_MAX);
            }),
            kMsgNodeConfig);
  EXPECT_EQ(reject([](JobSpec* s) { s->set_min_nodes(INT_MAX); }), kMsgNodeConfig);
  EXPECT_EQ(reject([](JobSpec* s) {
              s->set_min_nodes(1 << 20);
              s->set_ntasks_per_node(1 << 20);
            }),
            kMsgNodeConfig);
  EXPECT_EQ(reject([](JobSpec* s) { s->set_gpus_per_task(int64_t{1} << 40); }), kMsgBadGres);
  EXPECT_EQ(reject([](JobSpec* s) {
              s->set_mem_per_cpu_mb(INT64_MAX);
              s->set_cpus_per_task(4);
            }),
            kMsgMemory);
  EXPECT_EQ(reject([](JobSpec* s) {
              auto* g = s->add_gres_per_node();
              g->set_name("gpu");
              g->set_count(1);
              s->set_cpus_per_gpu(INT_MAX);
            }),
            kMsgNodeConfig);
}

TEST(Validate, OrdinaryRequestStillNormalises) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");
  JobInfo j = Job([](JobSpec* s) {
    s->set_min_nodes(2);
    s->set_ntasks_per_node(2);
    s->set_cpus_per_task(1);
  });
  ASSERT_TRUE(NormalizeJob(c, &j).ok());
  EXPECT_EQ(j.num_nodes(), 2);
  EXPECT_EQ(j.num_tasks(), 4);
  EXPECT_EQ(j.num_cpus(), 4);
}

}  // namespace
}  // namespace sluice::ctld
