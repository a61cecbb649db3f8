// NormalizeJob on hostile numbers (regressions from fuzz/regressions/submit_request):
// products of counts must never overflow; oversize requests get Slurm's errors.
#include "ctld/components/validate.h"

#include <gtest/gtest.h>

#include <climits>

#include "ctld/components/impossible_request.h"
#include "ctld/testing/controller_harness.h"

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
            std::string(kMsgMemory) + "\n" + kMsgNodeConfig);
  EXPECT_EQ(reject([](JobSpec* s) {
              auto* g = s->add_gres_per_node();
              g->set_name("gpu");
              g->set_count(1);
              s->set_cpus_per_gpu(INT_MAX);
            }),
            kMsgNodeConfig);
  // A partition without MaxTime takes any limit up to Slurm's 32-bit minute count; the
  // fuzzer's 4.4e18 minutes overflowed the seconds in the scheduler request.
  ASSERT_LT(c.partitions[0].max_time_min, 0);
  EXPECT_EQ(reject([](JobSpec* s) { s->set_time_limit_min(kMaxTimeLimitMin + 1); }),
            kMsgBadTimeLimit);
  EXPECT_EQ(reject([](JobSpec* s) { s->set_time_limit_min(INT64_MAX); }), kMsgBadTimeLimit);
  JobInfo longest = Job([](JobSpec* s) { s->set_time_limit_min(kMaxTimeLimitMin); });
  ASSERT_TRUE(NormalizeJob(c, &longest).ok());
  EXPECT_EQ(BuildRequest(c, longest)->time_limit_s, kMaxTimeLimitMin * 60);
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

namespace sluice::ctld {
namespace {

// What no node of the partition can hold is refused at submit, saying what the largest
// node offers, before Slurm's own line (impossible_request.h).
TEST(Validate, ImpossibleRequestsSayWhatTheLargestNodeOffers) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");  // 4 CPUs, 1000 MB, no GPUs
  c.nodes[1].cpus = 8;
  c.nodes[1].tmp_disk_mb = 1024;
  c.nodes[1].features = {"nvme"};
  c.nodes[1].gpus.resize(2);
  auto message = [&](const std::function<void(JobSpec*)>& edit) {
    JobInfo j = Job(edit);
    Status st = NormalizeJob(c, &j);
    return st.ok() ? std::string("ok") : st.message();
  };
  const std::string tail = std::string("\n") + kMsgNodeConfig;
  EXPECT_EQ(message([](JobSpec* s) { s->set_cpus_per_task(9); }),
            "CPU count per task can not be satisfied: --cpus-per-task=9, the largest node in "
            "partition p has 8 CPUs" +
                tail);
  EXPECT_EQ(message([](JobSpec* s) {
              s->set_min_nodes(1);
              s->set_ntasks(3);
              s->set_cpus_per_task(4);
            }),
            "CPU count per node can not be satisfied: 12 CPUs on one node (3 tasks x 4 CPUs per "
            "task), the largest node in partition p has 8 CPUs" +
                tail);
  EXPECT_EQ(message([](JobSpec* s) {
              auto* g = s->add_gres_per_node();
              g->set_name("gpu");
              g->set_count(3);
            }),
            "GPU count per node can not be satisfied: 3 GPUs (gpu) on one node, the largest node "
            "in partition p has 2" +
                tail);
  EXPECT_EQ(message([](JobSpec* s) { s->set_tmp_disk_mb(2048); }),
            "TmpDisk can not be satisfied: --tmp=2G on one node, the largest TmpDisk of a node in "
            "partition p is 1G" +
                tail);
  EXPECT_EQ(message([](JobSpec* s) { s->set_tmp_disk_mb(1024); }), "ok");
  EXPECT_EQ(message([](JobSpec* s) { s->set_min_cpus_per_node(9); }),
            "CPU count per node can not be satisfied: --mincpus=9, the largest node in partition p "
            "has 8 CPUs" +
                tail);
  EXPECT_EQ(message([](JobSpec* s) { s->set_min_cpus_per_node(8); }), "ok");
  EXPECT_EQ(message([](JobSpec* s) { s->set_constraint("nvme&ib"); }),
            std::string("invalid feature specified: ib\n") + kMsgInvalidFeature);
  EXPECT_EQ(message([](JobSpec* s) { s->set_constraint("nvme"); }), "ok");
  EXPECT_EQ(message([](JobSpec* s) { s->set_partition("train"); }),
            std::string("invalid partition specified: train\n") + kMsgInvalidPartition);
  EXPECT_EQ(message([](JobSpec* s) {
              auto* g = s->add_gres_per_node();
              g->set_name("fpga");
              g->set_count(1);
            }),
            std::string("invalid gres specified: fpga:1\n") + kMsgBadGres);
}

TEST(Validate, MemZeroTakesTheWholeNodeAndTmpPicksNodes) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");
  c.nodes[1].tmp_disk_mb = 4096;
  JobInfo j = Job([](JobSpec* s) { s->set_mem_whole_node(true); });
  ASSERT_TRUE(NormalizeJob(c, &j).ok());
  EXPECT_EQ(j.mem_per_node_mb(), 1000);
  j = Job([](JobSpec* s) { s->set_tmp_disk_mb(100); });
  ASSERT_TRUE(NormalizeJob(c, &j).ok());
  auto r = BuildRequest(c, j);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->allowed_nodes, std::vector<std::string>{"node02"});
  c.nodes[0].cpus = 2;
  j = Job([](JobSpec* s) { s->set_min_cpus_per_node(3); });  // --mincpus: only node02 (4)
  ASSERT_TRUE(NormalizeJob(c, &j).ok());
  EXPECT_EQ(BuildRequest(c, j)->allowed_nodes, std::vector<std::string>{"node02"});
}

// --overcommit: the CPUs of one task per node, so more tasks than CPUs fit on one node.
TEST(Validate, OvercommitSizesCpusForOneTaskPerNode) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");  // 4 CPUs each
  JobInfo over = Job([](JobSpec* s) {
    s->set_ntasks(9);
    s->set_overcommit(true);
  });
  ASSERT_TRUE(NormalizeJob(c, &over).ok());
  EXPECT_EQ(over.num_nodes(), 1);
  EXPECT_EQ(over.num_tasks(), 9);
  EXPECT_EQ(over.num_cpus(), 1);
  auto r = BuildRequest(c, over);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tasks_per_node, 9);
  EXPECT_EQ(r->cpus_per_node, 1);
  JobInfo plain = Job([](JobSpec* s) {  // without it: 9 CPUs, three nodes' worth
    s->set_min_nodes(1);
    s->set_ntasks(9);
  });
  EXPECT_FALSE(NormalizeJob(c, &plain).ok());
}

}  // namespace
}  // namespace sluice::ctld
