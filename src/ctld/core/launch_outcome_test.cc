// A job must never run twice at once: a LaunchJob whose outcome is unknown keeps the job
// bound to its node until the node's agent reports (registration) or the node goes DOWN;
// registrations and end reports are about one run (job, restarts); kills and cancels that
// did not surely arrive are sent again once the node answers.
#include <grpcpp/support/status.h>
#include <gtest/gtest.h>

#include "ctld/runtime/agent_outcome.h"
#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

class LaunchOutcome : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    Config c = testing::SmallCluster({"node01", "node02"}, "gpu");
    c.slurmd_timeout_s = 10;
    return c;
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }
  // `node` registers again reporting `jobs` (job id, restarts) as running.
  RegisterNodeReply Reregister(const std::string& node,
                               const std::vector<std::pair<int64_t, int>>& jobs) {
    RegisterNodeRequest r;
    r.set_node(node);
    r.set_cpus(4);
    r.set_real_memory_mb(1000);
    for (auto [id, run] : jobs) {
      JobReport* rep = r.add_jobs();
      rep->set_job_id(id);
      rep->set_state(JOB_RUNNING);
      rep->set_restarts(run);
    }
    auto reply = ctl_->RegisterNode(r);
    EXPECT_TRUE(reply.ok());
    EXPECT_TRUE(ctl_->Commit().ok());
    return reply.ok() ? *reply : RegisterNodeReply();
  }
  HeartbeatReply Beat(const std::string& node) {
    HeartbeatRequest h;
    h.set_node(node);
    HeartbeatReply r = ctl_->Heartbeat(h);
    EXPECT_TRUE(ctl_->Commit().ok());
    return r;
  }
};

// The agent started the run and died before answering ("Socket closed"): the job is not
// started elsewhere; the restarted agent reports the run and it goes on there.
TEST_F(LaunchOutcome, UnknownOutcomeKeepsTheRunUntilTheAgentReportsIt) {
  int64_t id = SubmitAndStart();
  ASSERT_EQ(link_.launches.size(), 1u);
  ASSERT_EQ(link_.launches[0].to.node, "node01");
  link_.launches[0].done(UnknownOutcome("Socket closed"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_EQ(Job(id).restarts(), 0);
  EXPECT_FALSE(ctl_->GetNodes({})->nodes(0).drain());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(link_.launches.size(), 1u);  // not launched again anywhere
  EXPECT_TRUE(Beat("node01").reregister());
  RegisterNodeReply reply = Reregister("node01", {{id, 0}});
  EXPECT_EQ(reply.kill_job_ids_size(), 0);
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_EQ(Job(id).alloc(0).node(), "node01");
  EXPECT_EQ(Job(id).restarts(), 0);
  for (const auto& [to, sig] : link_.signals) EXPECT_NE(sig.kind(), SIGNAL_KILL_STALE);
}

// The launch never got there: the agent's registration does not list the run, so the job
// is requeued then, and runs once elsewhere.
TEST_F(LaunchOutcome, UnknownOutcomeRequeuesWhenTheRegistrationLacksTheRun) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(UnknownOutcome("Deadline Exceeded"));
  ASSERT_TRUE(ctl_->Commit().ok());
  Reregister("node01", {});
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 1);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 2u);
  EXPECT_EQ(link_.launches[1].req.launch().job().restarts(), 1);
}

// The agent never comes back: the job is requeued when the node is declared DOWN after
// SlurmdTimeout, not before.
TEST_F(LaunchOutcome, UnknownOutcomeRequeuesWhenTheNodeGoesDown) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(UnknownOutcome("Socket closed"));
  ASSERT_TRUE(ctl_->Commit().ok());
  Beat("node02");
  clock_.Advance(5);
  Beat("node02");
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  clock_.Advance(6);
  Beat("node02");
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 2u);
  EXPECT_EQ(link_.launches[1].to.node, "node02");
}

// An agent's report of an older run (the run the controller gave up) is not the current
// run: that one is killed, and the current run, not there, is lost with the node.
TEST_F(LaunchOutcome, RegistrationOfAnOlderRunKillsItAndLosesTheCurrentOne) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(UnknownOutcome("Socket closed"));
  ASSERT_TRUE(ctl_->Commit().ok());
  RegisterNodeReply reply = Reregister("node01", {{id, 7}});
  ASSERT_EQ(reply.kill_job_ids_size(), 1);
  EXPECT_EQ(reply.kill_job_ids(0), id);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
}

// An end report of another run of the job never ends the current one.
TEST_F(LaunchOutcome, EndReportOfAnotherRunIsIgnored) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(Status::Ok());
  JobEndedRequest e;
  e.set_node("node01");
  e.mutable_report()->set_job_id(id);
  e.mutable_report()->set_finished(true);
  e.mutable_report()->set_state(JOB_COMPLETED);
  e.mutable_report()->set_restarts(3);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  e.mutable_report()->set_restarts(0);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_COMPLETED);
}

// Every registration gets a higher session, also from a later controller instance, and a
// launch carries the session of its node.
TEST_F(LaunchOutcome, LaunchesCarryTheNodesSession) {
  int64_t first = Reregister("node01", {}).session();
  int64_t second = Reregister("node01", {}).session();
  EXPECT_GT(second, first);
  SubmitAndStart();
  ASSERT_EQ(link_.launches.size(), 1u);
  EXPECT_EQ(link_.launches[0].req.session(), second);
  clock_.Advance(1);
  StartController();
  EXPECT_GT(Reregister("node01", {}).session(), second);
}

// A cancel that did not surely arrive is sent again at the node's next heartbeat; a
// user's signal that may have arrived is not delivered twice.
TEST_F(LaunchOutcome, LostCancelIsResentWhenTheNodeAnswers) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(Status::Ok());
  link_.signal_result = UnknownOutcome("Socket closed");
  CancelRequest sig;
  sig.add_job_ids(id);
  sig.set_signal(10);
  ctl_->Cancel({1000, 1000}, sig);
  ASSERT_TRUE(ctl_->Commit().ok());
  CancelRequest cancel;
  cancel.add_job_ids(id);
  ctl_->Cancel({1000, 1000}, cancel);
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.signals.size(), 2u);
  link_.signal_result = Status::Ok();
  Beat("node01");
  ASSERT_EQ(link_.signals.size(), 3u);
  EXPECT_EQ(link_.signals[2].second.kind(), SIGNAL_CANCEL);
  Beat("node01");
  EXPECT_EQ(link_.signals.size(), 3u);  // answered: not sent again
}

// A cancel that overtook its job's launch (or was lost) leaves the run going: the
// heartbeat that still lists it running gets the cancel again.
TEST_F(LaunchOutcome, HeartbeatListingACancelledRunCancelsItAgain) {
  int64_t id = SubmitAndStart();
  link_.launches[0].done(Status::Ok());
  CancelRequest cancel;
  cancel.add_job_ids(id);
  ctl_->Cancel({1000, 1000}, cancel);
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.signals.size(), 1u);
  HeartbeatRequest h;
  h.set_node("node01");
  h.add_running_job_ids(id);
  EXPECT_EQ(ctl_->Heartbeat(h).kill_job_ids_size(), 0);
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.signals.size(), 2u);
  EXPECT_EQ(link_.signals[1].second.kind(), SIGNAL_CANCEL);
  EXPECT_EQ(link_.signals[1].second.job_id(), id);
}

TEST(AgentCallOutcome, OnlyCallsThatNeverLeftOrWereRefusedAreFailures) {
  using grpc::StatusCode;
  auto code = [](StatusCode c, const char* msg) {
    return AgentCallOutcome(grpc::Status(c, msg)).code();
  };
  EXPECT_EQ(code(StatusCode::OK, ""), Code::kOk);
  EXPECT_EQ(code(StatusCode::UNAVAILABLE,
                 "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:9: "
                 "Failed to connect to remote host: Connection refused"),
            Code::kUnavailable);
  EXPECT_EQ(code(StatusCode::UNAVAILABLE, "Socket closed"), Code::kUnknown);
  EXPECT_EQ(code(StatusCode::UNAVAILABLE, "Connection reset by peer"), Code::kUnknown);
  EXPECT_EQ(code(StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"), Code::kUnknown);
  EXPECT_EQ(code(StatusCode::CANCELLED, "Cancelled"), Code::kUnknown);
  EXPECT_EQ(code(StatusCode::INTERNAL, "RST_STREAM"), Code::kUnknown);
  EXPECT_EQ(code(StatusCode::UNAUTHENTICATED, "Invalid node authentication"),
            Code::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice::ctld
