// Node loss and requeue semantics, RequeueExit/RequeueExitHold, requeuehold, signal
// delivery scopes and the --signal warning (requeue_ops.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;
constexpr uint32_t kBob = 1001;

Config RequeueConfigForTest() {
  Config c = testing::SmallCluster({"node01", "node02", "node03"}, "batch");
  c.slurmd_timeout_s = 10;
  c.partitions[0].max_time_min = 60;
  c.requeue.max_batch_requeue = 2;
  c.requeue.requeue_exit = {42};
  c.requeue.requeue_exit_hold = {43};
  return c;
}

class RequeueTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return RequeueConfigForTest(); }

  int64_t Start(int nodes = 1, int requeue = 0, const std::string& signal = "") {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_min_nodes(nodes);
    r.mutable_spec()->set_requeue(requeue);
    r.mutable_spec()->set_signal(signal);
    r.mutable_spec()->set_time_limit_min(10);
    auto rep = ctl_->Submit({kAlice, kAlice}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    int64_t id = rep.ok() ? rep->job_id() : -1;
    EXPECT_EQ(Job(id).state(), JOB_RUNNING);
    return id;
  }

  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  // Every node but `dead` heartbeats; then the liveness timeout passes.
  void KillNode(const std::string& dead) {
    clock_.Advance(11);
    for (const char* n : {"node01", "node02", "node03"}) {
      HeartbeatRequest hb;
      hb.set_node(n);
      if (n != dead) ctl_->Heartbeat(hb);
    }
    clock_.Advance(1);
    ctl_->Tick();
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  void End(int64_t id, int exit_code) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_exit_code(exit_code);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  Status Action(int64_t id, JobAction a, uint32_t uid = kAlice) {
    UpdateJobRequest u;
    u.add_job_ids(id);
    u.set_action(a);
    Status st = ctl_->UpdateJob({uid, uid}, u);
    EXPECT_TRUE(ctl_->Commit().ok());
    return st;
  }

  // Signals sent since `from`, as (node, request).
  std::vector<std::pair<std::string, SignalJobRequest>> SignalsSince(size_t from) {
    std::vector<std::pair<std::string, SignalJobRequest>> out;
    for (size_t i = from; i < link_.signals.size(); ++i) {
      out.emplace_back(link_.signals[i].first.node, link_.signals[i].second);
    }
    return out;
  }
};

TEST_F(RequeueTest, LostNodeKillsSurvivorsAndRequeuesAtOnceWithFreshAge) {
  int64_t id = Start(2);
  ASSERT_EQ(Job(id).alloc(0).node(), "node01");
  ASSERT_EQ(Job(id).alloc(1).node(), "node02");
  int64_t submitted = Job(id).eligible_time();
  size_t mark = link_.signals.size();
  KillNode("node02");  // not the batch host: the batch host's run must die too
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 1);
  EXPECT_EQ(Job(id).auto_requeues(), 1);
  EXPECT_GT(Job(id).eligible_time(), submitted);
  auto sent = SignalsSince(mark);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, "node01");
  EXPECT_EQ(sent[0].second.kind(), SIGNAL_KILL_STALE);
  // Starts again at once on the live nodes, with the restart count in its launch.
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  for (const auto& a : Job(id).alloc()) EXPECT_NE(a.node(), "node02");
  EXPECT_EQ(link_.launches.back().req.launch().job().restarts(), 1);
  EXPECT_TRUE(link_.launches.back().req.launch().append_output());
}

// A kill for a failed run names that run (the job with its restart count): the
// requeued job's next run may reach a node before the kill, and must not be stopped.
TEST_F(RequeueTest, KillsOfARunThatFailedToStartNameThatRun) {
  int64_t id = Start(2);
  size_t mark = link_.signals.size();
  JobEndedRequest e;  // node02 (not the batch host): its Prolog failed
  e.set_node("node02");
  e.mutable_report()->set_job_id(id);
  e.mutable_report()->set_finished(true);
  e.mutable_report()->set_state(JOB_FAILED);
  e.mutable_report()->set_prolog_failed(true);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).restarts(), 1);
  auto sent = SignalsSince(mark);
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& [node, sig] : sent) {
    EXPECT_EQ(sig.kind(), SIGNAL_KILL_STALE) << node;
    ASSERT_TRUE(sig.has_job()) << node;
    EXPECT_EQ(sig.job().restarts(), 0) << node;
  }
  ctl_->SchedulePass();  // run 1 on node01 and node03; its launch fails on node03
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  mark = link_.signals.size();
  link_.launches.back().done(Internal("spool full"));
  ASSERT_TRUE(ctl_->Commit().ok());
  sent = SignalsSince(mark);
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& [node, sig] : sent) {
    ASSERT_TRUE(sig.has_job()) << node;
    EXPECT_EQ(sig.job().restarts(), 1) << node;
  }
}

TEST_F(RequeueTest, NoRequeueEndsNodeFail) {
  int64_t id = Start(1, 2);
  KillNode(Job(id).alloc(0).node());
  EXPECT_EQ(Job(id).state(), JOB_NODE_FAIL);
  EXPECT_EQ(Job(id).reason(), "NodeDown");
}

TEST_F(RequeueTest, BatchHostThatFencedItselfRequeuesTheJob) {
  // The node's lease ran out (node_common/node_lease.h) and its stepd killed the job
  // with NODE_FAIL before the controller declared the node DOWN: requeued as a lost job.
  int64_t id = Start();
  JobEndedRequest e;
  e.set_node(Job(id).alloc(0).node());
  e.mutable_report()->set_job_id(id);
  e.mutable_report()->set_finished(true);
  e.mutable_report()->set_state(JOB_NODE_FAIL);
  e.mutable_report()->set_term_signal(9);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 1);
  EXPECT_EQ(Job(id).auto_requeues(), 1);
  int64_t no_requeue = Start(1, 2);
  e.set_node(Job(no_requeue).alloc(0).node());
  e.mutable_report()->set_job_id(no_requeue);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(no_requeue).state(), JOB_NODE_FAIL);
}

TEST_F(RequeueTest, BeginTimeKeepsTheJobPendingUntilThen) {
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_begin_time(clock_.Now() + 60);
  auto rep = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_TRUE(ctl_->Commit().ok());
  int64_t id = rep->job_id();
  EXPECT_EQ(Job(id).reason(), "BeginTime");
  EXPECT_EQ(Job(id).eligible_time(), clock_.Now() + 60);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "BeginTime");
  EXPECT_EQ(Job(id).planned_start(), clock_.Now() + 60);
  clock_.Advance(59);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  clock_.Advance(1);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  // The begin time survives a controller restart with the job.
  r.mutable_spec()->set_begin_time(clock_.Now() + 3600);
  rep = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_TRUE(rep.ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  StartController();
  Register("node01");
  ctl_->SchedulePass();
  EXPECT_EQ(Job(rep->job_id()).state(), JOB_PENDING);
  EXPECT_EQ(Job(rep->job_id()).reason(), "BeginTime");
}

TEST_F(RequeueTest, MaxBatchRequeueBoundsAutomaticRequeues) {
  int64_t id = Start(1);
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(Job(id).state(), JOB_RUNNING);
    link_.launches.back().done(Internal("cannot fork stepd"));
    ASSERT_TRUE(ctl_->Commit().ok());
    EXPECT_EQ(Job(id).state(), JOB_PENDING) << round;
    ctl_->SchedulePass();  // the failed node is drained: the next run avoids it
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  // Third failure: MaxBatchRequeue=2 reached.
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  link_.launches.back().done(Internal("cannot fork stepd"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_NODE_FAIL);
  EXPECT_EQ(Job(id).reason(), "JobLaunchFailure:MaxBatchRequeue=2_reached");
  auto nodes = ctl_->GetNodes({});
  for (const auto& n : nodes->nodes()) EXPECT_TRUE(n.drain()) << n.name();
}

TEST_F(RequeueTest, LaunchesThatNeverReachedANodeDoNotCountAgainstTheBound) {
  int64_t id = Start(1);
  std::set<std::string> tried;
  // Three undelivered launches, one per node: more than MaxBatchRequeue=2.
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(Job(id).state(), JOB_RUNNING) << round;
    tried.insert(Job(id).alloc(0).node());
    link_.launches.back().done(Unavailable("connection refused"));
    ASSERT_TRUE(ctl_->Commit().ok());
    EXPECT_EQ(Job(id).state(), JOB_PENDING) << round;
    EXPECT_EQ(Job(id).auto_requeues(), 0) << round;
    ctl_->SchedulePass();  // an unreachable node takes no job until it registers again
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  EXPECT_EQ(tried.size(), 3u);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  Register("node02");
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_EQ(Job(id).alloc(0).node(), "node02");
}

TEST_F(RequeueTest, ManualRequeueDoesNotCountAgainstTheBound) {
  int64_t id = Start(1);
  ASSERT_TRUE(Action(id, JOB_ACTION_REQUEUE).ok());
  End(id, 0);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 1);
  EXPECT_EQ(Job(id).auto_requeues(), 0);
}

TEST_F(RequeueTest, OnlyTheOwnerOrAdminMayRequeue) {
  int64_t id = Start(1);
  Status st = Action(id, JOB_ACTION_REQUEUE, kBob);
  EXPECT_EQ(st.message(), "Access/permission denied");
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_TRUE(Action(id, JOB_ACTION_REQUEUE, 0).ok());
  EXPECT_EQ(Job(id).state(), JOB_COMPLETING);
}

TEST_F(RequeueTest, RequeueHoldLeavesTheJobHeldUntilReleased) {
  int64_t id = Start(1);
  ASSERT_TRUE(Action(id, JOB_ACTION_REQUEUE_HOLD).ok());
  EXPECT_EQ(Job(id).state(), JOB_COMPLETING);
  End(id, 0);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  EXPECT_EQ(Job(id).priority(), 0);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  ASSERT_TRUE(Action(id, JOB_ACTION_RELEASE).ok());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  // A finished job is requeued held at once.
  End(id, 0);
  ASSERT_EQ(Job(id).state(), JOB_COMPLETED);
  ASSERT_TRUE(Action(id, JOB_ACTION_REQUEUE_HOLD).ok());
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
}

TEST_F(RequeueTest, RequeueExitAndRequeueExitHold) {
  int64_t id = Start(1);
  End(id, 42);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_NE(Job(id).priority(), 0);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  End(id, 43);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  EXPECT_EQ(Job(id).restarts(), 2);
  int64_t other = Start(1);
  End(other, 1);
  EXPECT_EQ(Job(other).state(), JOB_FAILED);
}

TEST_F(RequeueTest, ScancelSignalScopes) {
  int64_t id = Start(2);
  auto send = [&](bool batch, bool full) {
    size_t mark = link_.signals.size();
    CancelRequest c;
    c.add_job_ids(id);
    c.set_signal(10);
    c.set_batch_only(batch);
    c.set_full(full);
    auto rep = ctl_->Cancel({kAlice, kAlice}, c);
    EXPECT_EQ(rep.results(0).code(), 0);
    EXPECT_TRUE(ctl_->Commit().ok());
    return SignalsSince(mark);
  };
  auto steps = send(false, false);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FALSE(steps[0].second.batch_only() || steps[0].second.full());
  EXPECT_EQ(steps[0].second.signal(), 10);
  auto batch = send(true, false);
  ASSERT_EQ(batch.size(), 1u);  // the batch host only
  EXPECT_EQ(batch[0].first, "node01");
  EXPECT_TRUE(batch[0].second.batch_only());
  auto full = send(false, true);
  ASSERT_EQ(full.size(), 2u);
  EXPECT_TRUE(full[0].second.full());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
}

TEST_F(RequeueTest, WarnSignalIsSentOnceBeforeTheTimeLimit) {
  int64_t id = Start(1, 0, "B:USR2@120");
  size_t mark = link_.signals.size();
  clock_.Advance(10 * 60 - 121);
  for (const char* n : {"node01", "node02", "node03"}) {
    HeartbeatRequest hb;
    hb.set_node(n);
    ctl_->Heartbeat(hb);
  }
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_TRUE(SignalsSince(mark).empty());
  clock_.Advance(2);
  for (const char* n : {"node01", "node02", "node03"}) {
    HeartbeatRequest hb;
    hb.set_node(n);
    ctl_->Heartbeat(hb);
  }
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  auto sent = SignalsSince(mark);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].second.kind(), SIGNAL_DELIVER);
  EXPECT_EQ(sent[0].second.signal(), 12);
  EXPECT_TRUE(sent[0].second.batch_only());
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(SignalsSince(mark).size(), 1u);
  EXPECT_TRUE(Job(id).warn_signal_sent());
}

TEST_F(RequeueTest, BadSignalSpecIsRefusedAtSubmit) {
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_signal("B:NOPE@10");
  auto rep = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().message(), "Invalid --signal specification");
}

}  // namespace
}  // namespace sluice::ctld
