// SchedulerParameters=bf_predict=user2 in the controller: the runs that end here teach
// the predictor, and each pass plans pending jobs with their user's prediction and
// running jobs to their predicted (step-wise extended) end; without it, neither.
#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;

// First fit, keeping what each pass was given.
class RecordingScheduler : public testing::FirstFitScheduler {
 public:
  sched::Plan Schedule(const sched::ClusterSnapshot& snapshot,
                       const std::vector<sched::JobRequest>& pending, int64_t now) override {
    last_snapshot = snapshot;
    last_pending = pending;
    return testing::FirstFitScheduler::Schedule(snapshot, pending, now);
  }
  sched::ClusterSnapshot last_snapshot;
  std::vector<sched::JobRequest> last_pending;
};

class RuntimePredictionTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    Config c = testing::SmallCluster({"n1"}, "batch");
    if (GetParam()) c.raw["SchedulerParameters"] = "bf_predict=user2";
    ControllerOptions o;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.log = log::Null();
    ctl_ = std::make_unique<Controller>(c, &clock_, &store_, &link_,
                                        SchedDeps{&sched_, testing::FakeFeasible}, o);
    ASSERT_TRUE(ctl_->Load(false).ok());
    ASSERT_TRUE(ctl_->RegisterNode(testing::EmptyNode("n1")).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  int64_t Submit(int cpus) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_cpus_per_task(cpus);
    r.mutable_spec()->set_time_limit_min(60);
    auto rep = ctl_->Submit({kAlice, kAlice}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id) {
    JobEndedRequest e;
    e.set_node("n1");
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const sched::RunningJob* Running(int64_t id) const {
    for (const auto& r : sched_.last_snapshot.running)
      if (r.job_id == id) return &r;
    return nullptr;
  }

  ManualClock clock_{1'700'000'000};
  testing::FakeAgentLink link_;
  RecordingScheduler sched_;
  storage::MemoryStateStore store_;
  std::unique_ptr<Controller> ctl_;
};

TEST_P(RuntimePredictionTest, PassesPlanWithTheUsersLastRuns) {
  const bool predicts = GetParam();
  for (int64_t ran : {100, 300}) {  // two runs of Alice's: 100 s and 300 s
    const int64_t id = Submit(1);
    Pass();
    clock_.Advance(ran);
    End(id);
  }
  const int64_t b = Submit(1);
  Pass();
  ASSERT_EQ(sched_.last_pending.size(), 1u);
  EXPECT_EQ(sched_.last_pending[0].predicted_runtime_s, predicts ? 200 : 0);
  ASSERT_EQ(ctl_->jobs().Find(b)->state(), JOB_RUNNING);
  const int64_t start = ctl_->jobs().Find(b)->start_time();

  const int64_t c = Submit(4);  // waits for b: a pass that sees b running
  Pass();
  ASSERT_NE(Running(b), nullptr);
  EXPECT_EQ(Running(b)->end_time, start + 3600);
  EXPECT_EQ(Running(b)->planned_end, predicts ? start + 200 : 0);
  clock_.Advance(250);  // b outlived its prediction: the next rung (5 min), not its limit
  Pass();
  EXPECT_EQ(Running(b)->planned_end, predicts ? start + 300 : 0);
  EXPECT_EQ(ctl_->jobs().Find(c)->state(), JOB_PENDING);
}

INSTANTIATE_TEST_SUITE_P(WithAndWithout, RuntimePredictionTest, ::testing::Bool());

}  // namespace
}  // namespace sluice::ctld
