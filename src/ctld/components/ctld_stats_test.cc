// sdiag's counters: job transitions, scheduling passes with their backfilled starts, and
// the admin-only reset.
#include "ctld/components/ctld_stats.h"

#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

TEST(JobCounters, CountEachTransitionOnce) {
  JobCounters c;
  c.Count(JOB_PENDING, JOB_RUNNING);
  c.Count(JOB_RUNNING, JOB_RUNNING);
  c.Count(JOB_RUNNING, JOB_PENDING);  // requeued
  c.Count(JOB_PENDING, JOB_RUNNING);
  c.Count(JOB_RUNNING, JOB_COMPLETED);
  c.Count(JOB_PENDING, JOB_CANCELLED);
  c.Count(JOB_RUNNING, JOB_TIMEOUT);
  c.Count(JOB_RUNNING, JOB_NODE_FAIL);
  EXPECT_EQ(c.started, 2);
  EXPECT_EQ(c.requeued, 1);
  EXPECT_EQ(c.completed, 1);
  EXPECT_EQ(c.cancelled, 1);
  EXPECT_EQ(c.failed, 2);
}

TEST(PassStats, KeepsLastMaxTotalAndDepth) {
  PassStats p;
  p.Record(100, 5, 1);
  p.Record(300, 2, 0);
  p.Record(200, 8, 2);
  EXPECT_EQ(p.cycles, 3);
  EXPECT_EQ(p.last_us, 200);
  EXPECT_EQ(p.max_us, 300);
  EXPECT_EQ(p.total_us, 600);
  EXPECT_EQ(p.last_depth, 8);
  EXPECT_EQ(p.total_depth, 15);
  EXPECT_EQ(p.backfilled, 3);
  EXPECT_EQ(p.last_backfilled, 2);
}

class CtldStatsTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return testing::SmallCluster({"n1", "n2"}, "batch"); }
  int64_t Submit(int cpus) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_cpus_per_task(cpus);
    auto rep = ctl_->Submit({1000, 1000}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  GetStatsReply Stats(uint32_t uid = 0, bool reset = false) {
    Expected<GetStatsReply> s = ctl_->GetStats({uid, uid}, reset);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : GetStatsReply();
  }
};

TEST_F(CtldStatsTest, CountsSubmissionsStartsBackfillEndsAndResets) {
  Submit(4);  // n1 full
  Submit(2);  // half of n2
  Pass();
  const int64_t big = Submit(4);  // waits for a whole node
  Submit(1);                      // fits beside the 2-CPU job: started ahead of `big`
  Pass();
  GetStatsReply s = Stats();
  EXPECT_EQ(s.jobs_submitted(), 4);
  EXPECT_EQ(s.jobs_started(), 3);
  EXPECT_EQ(s.jobs_pending(), 1);
  EXPECT_EQ(s.jobs_running(), 3);
  EXPECT_EQ(s.sched_cycles(), 2);
  EXPECT_EQ(s.sched_last_depth(), 2);
  EXPECT_EQ(s.backfilled_jobs(), 1);
  EXPECT_EQ(s.last_backfilled_jobs(), 1);
  EXPECT_GE(s.sched_max_us(), s.sched_last_us());

  CancelRequest c;
  c.add_job_ids(big);  // pending: cancelled at once
  ctl_->Cancel({1000, 1000}, c);
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Stats().jobs_cancelled(), 1);
  EXPECT_EQ(Stats().jobs_pending(), 0);

  // Only an admin resets; the reply still carries what was counted before.
  EXPECT_FALSE(ctl_->GetStats({1000, 1000}, true).ok());
  EXPECT_EQ(Stats(0, true).jobs_submitted(), 4);
  GetStatsReply after = Stats();
  EXPECT_EQ(after.jobs_submitted(), 0);
  EXPECT_EQ(after.sched_cycles(), 0);
  EXPECT_EQ(after.data_since(), after.now());
  EXPECT_EQ(after.jobs_running(), 3);  // gauges are not counters: still exact
}

}  // namespace
}  // namespace sluice::ctld
