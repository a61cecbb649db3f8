// JobRecordOf / BatchStepOf (pure), MergeLive, and the AcctWriter queue.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "acct/acct_merge.h"
#include "acct/acct_writer.h"
#include "acct/job_records.h"

namespace sluice::acct {
namespace {

JobInfo RunningJob() {
  JobInfo j;
  j.set_job_id(12);
  j.set_restarts(1);
  j.set_state(JOB_RUNNING);
  j.set_uid(1000);
  j.set_user("alice");
  j.mutable_spec()->set_name("train");
  j.mutable_spec()->set_account("physics");
  j.mutable_spec()->set_partition("gpu");
  j.set_submit_time(100);
  j.set_start_time(110);
  j.set_num_cpus(4);
  j.set_num_nodes(2);
  j.set_mem_per_node_mb(2000);
  j.set_gpus_per_node(2);
  j.set_time_limit_min(-1);
  for (const char* n : {"node01", "node02"}) {
    NodeAlloc* a = j.add_alloc();
    a->set_node(n);
    a->add_cpu_ids(0);
    a->add_cpu_ids(1);
    a->set_mem_mb(2000);
    a->add_gpu_ids(0);
    a->add_gpu_ids(1);
  }
  return j;
}

TEST(JobRecords, JobRecordCarriesAttemptTresAndNodes) {
  AcctJobRecord r = JobRecordOf(RunningJob());
  EXPECT_EQ(r.job_id, 12);
  EXPECT_EQ(r.attempt, 1);
  EXPECT_EQ(r.nodes, "node[01-02]");
  EXPECT_EQ(r.alloc_cpus, 4);
  EXPECT_EQ(r.alloc_gpus, 4);
  EXPECT_EQ(r.alloc_tres, "billing=4,cpu=4,gres/gpu=4,mem=4000M,node=2");
  EXPECT_EQ(r.req_tres, "billing=4,cpu=4,gres/gpu=4,mem=4000M,node=2");
  EXPECT_EQ(r.qos, "normal");
  EXPECT_EQ(FromProto(ToProto(r)), r);
}

TEST(JobRecords, CancellerIsCarriedForCancelledJobsOnly) {
  JobInfo j = RunningJob();
  EXPECT_EQ(JobRecordOf(j).cancelled_by, -1);
  EXPECT_FALSE(ToProto(JobRecordOf(j)).has_cancelled_by());
  j.set_cancelled_by(0);                       // root cancelled alice's job
  EXPECT_EQ(JobRecordOf(j).cancelled_by, -1);  // still running: not (yet) cancelled
  j.set_state(JOB_CANCELLED);
  AcctJobRecord r = JobRecordOf(j);
  EXPECT_EQ(r.cancelled_by, 0);
  AcctJob p = ToProto(r);
  ASSERT_TRUE(p.has_cancelled_by());  // uid 0 is a value, not "unset"
  EXPECT_EQ(p.cancelled_by(), 0u);
  EXPECT_EQ(FromProto(p), r);
  j.set_cancelled_by(1000);
  EXPECT_EQ(FromProto(ToProto(JobRecordOf(j))).cancelled_by, 1000);
}

TEST(JobRecords, BatchStepFollowsTheJob) {
  JobInfo j = RunningJob();
  auto b = BatchStepOf(j, {});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->step_id, kBatchStep);
  EXPECT_EQ(b->nodes, "node01");
  EXPECT_EQ(b->state, JOB_RUNNING);
  EXPECT_EQ(b->alloc_tres, "cpu=2,gres/gpu=2,mem=2000M,node=1");
  j.set_state(JOB_CANCELLED);
  j.set_end_time(200);
  b = BatchStepOf(j, {4096, 2000000, GpuTresUsage(50, 10), GpuTresUsage(90, 20)});
  EXPECT_EQ(b->state, JOB_CANCELLED);
  EXPECT_EQ(b->term_signal, 15);
  EXPECT_EQ(b->max_rss_kb, 4096);
  EXPECT_EQ(b->tres_usage_in_ave, "gres/gpumem=10M,gres/gpuutil=50");
  EXPECT_EQ(b->tres_usage_in_max, "gres/gpumem=20M,gres/gpuutil=90");
  EXPECT_EQ(FromProto(ToProto(*b)), *b);
  j.mutable_spec()->set_interactive(true);
  EXPECT_FALSE(BatchStepOf(j, {}).has_value());
}

TEST(MergeLive, LiveRowsReplaceStoredOnes) {
  AcctData stored, live;
  stored.jobs = {{.job_id = 1, .attempt = 0, .state = 2}, {.job_id = 2, .attempt = 0, .state = 4}};
  stored.steps = {{.job_id = 1, .attempt = 0, .step_id = 0, .state = 4}};
  live.jobs = {{.job_id = 1, .attempt = 0, .state = 4}, {.job_id = 3, .attempt = 0, .state = 1}};
  live.steps = {{.job_id = 1, .attempt = 0, .step_id = kBatchStep, .state = 4}};
  AcctData m = MergeLive(stored, live);
  ASSERT_EQ(m.jobs.size(), 3u);
  EXPECT_EQ(m.jobs[0].state, 4);
  EXPECT_EQ(m.jobs[2].job_id, 3);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].step_id, kBatchStep);
}

TEST(MergeLive, StoredUsageSurvivesALiveStepThatNoLongerKnowsIt) {
  AcctData stored, live;
  stored.jobs = {{.job_id = 1, .attempt = 0, .state = 4}};
  stored.steps = {{.job_id = 1,
                   .attempt = 0,
                   .step_id = kBatchStep,
                   .state = 4,
                   .max_rss_kb = 95000,
                   .total_cpu_us = 300000}};
  live.jobs = stored.jobs;
  live.steps = {{.job_id = 1, .attempt = 0, .step_id = kBatchStep, .state = 4}};  // usage -1
  AcctData m = MergeLive(stored, live);
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].max_rss_kb, 95000);
  EXPECT_EQ(m.steps[0].total_cpu_us, 300000);
  live.steps[0].max_rss_kb = 7;  // a live value wins
  EXPECT_EQ(MergeLive(stored, live).steps[0].max_rss_kb, 7);
}

TEST(AcctWriter, PostedOpsAreWrittenAndQueryable) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("acct-writer-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  AcctConfig c;
  c.sqlite_path = dir + "/a.db";
  {
    AcctWriter w(c);
    ASSERT_TRUE(w.Start().ok());
    for (int i = 1; i <= 50; ++i) w.Post({AcctJobRecord{.job_id = i, .state = 1}});
    ASSERT_TRUE(w.Flush(20'000));
    auto d = w.Query({});
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->jobs.size(), 50u);
  }
  std::filesystem::remove_all(dir);
}

TEST(AcctWriter, UnreachablePostgresDoesNotBlock) {
  AcctConfig c;
  c.type = "accounting_storage/pgsql";
  c.host = "/nonexistent-socket-dir";
  c.port = 1;
  AcctWriter w(c);
  ASSERT_TRUE(w.Start().ok());
  w.Post({AcctJobRecord{.job_id = 1}});  // queued, never written
  EXPECT_FALSE(w.Flush(300));
  EXPECT_FALSE(w.Query({}).ok());
}

}  // namespace
}  // namespace sluice::acct
