// Controller side of node health: NodeHealth in registrations/heartbeats drains and
// undrains (once per seq, never an admin's drain), and Prolog/Epilog failures in a job's
// end report drain the batch host (a failed prolog also requeues the job).
#include <gtest/gtest.h>

#include <filesystem>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAdmin = 500;

class HealthOps : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return testing::SmallCluster({"node01", "node02"}, "gpu"); }
  ControllerOptions MakeOptions() const override {
    ControllerOptions o = ControllerHarness::MakeOptions();
    o.admin_uid = kAdmin;
    return o;
  }
  // A new controller instance on the same store (a restart), nodes registered empty.
  void Restart() { StartController(); }
  HeartbeatReply Beat(const std::string& node, int64_t seq, bool failed,
                      const std::string& reason) {
    HeartbeatRequest h;
    h.set_node(node);
    h.mutable_health()->set_seq(seq);
    h.mutable_health()->set_failed(failed);
    h.mutable_health()->set_reason(reason);
    HeartbeatReply r = ctl_->Heartbeat(h);
    EXPECT_TRUE(ctl_->Commit().ok());
    return r;
  }
  NodeInfo Node(int i) { return ctl_->GetNodes({})->nodes(i); }
  void Update(const std::string& node, const std::string& state, const std::string& reason = "") {
    UpdateNodeRequest r;
    r.add_names(node);
    r.set_state(state);
    r.set_reason(reason);
    ASSERT_TRUE(ctl_->UpdateNode({kAdmin, kAdmin}, r).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id, bool prolog_failed, bool epilog_failed) {
    JobEndedRequest e;
    e.set_node(ctl_->jobs().Find(id)->alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_state(prolog_failed ? JOB_FAILED : JOB_COMPLETED);
    e.mutable_report()->set_prolog_failed(prolog_failed);
    e.mutable_report()->set_epilog_failed(epilog_failed);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
};

TEST_F(HealthOps, FailureDrainsOncePerRunAndPassLiftsOnlyItsOwnDrain) {
  Beat("node01", 1, true, "GPU 3 ECC");
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "GPU 3 ECC");
  // RESUME holds until the next run of the program (same seq: no re-drain).
  Update("node01", "RESUME");
  Beat("node01", 1, true, "GPU 3 ECC");
  EXPECT_FALSE(Node(0).drain());
  Beat("node01", 2, true, "GPU 3 ECC");
  EXPECT_TRUE(Node(0).drain());
  Beat("node01", 3, false, "GPU 3 ECC");
  EXPECT_FALSE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "");
  // An admin drain survives failing and passing runs.
  Update("node02", "DRAIN", "maintenance");
  Beat("node02", 1, true, "disk full");
  EXPECT_EQ(Node(1).reason(), "maintenance");
  Beat("node02", 2, false, "disk full");
  Beat("node02", 3, false, "maintenance");  // same text, but set by an admin
  EXPECT_TRUE(Node(1).drain());
}

TEST_F(HealthOps, RepliesCarryAllocatedCpus) {
  EXPECT_EQ(Beat("node01", 1, false, "").alloc_cpus(), 0);
  SubmitAndStart();
  EXPECT_EQ(Beat("node01", 2, false, "").alloc_cpus(), 1);
}

TEST_F(HealthOps, PrologFailureDrainsAndRequeuesEpilogFailureDrains) {
  int64_t id = SubmitAndStart();
  ASSERT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node01");
  End(id, true, false);
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_PENDING);
  EXPECT_EQ(ctl_->jobs().Find(id)->restarts(), 1);
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "Prolog error");
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node02");
  End(id, false, true);
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_COMPLETED);
  EXPECT_EQ(Node(1).reason(), "Epilog error");
}

// An agent that cannot be reached for a launch (restarting) is not drained: the job is
// requeued and the node takes no new job until the agent registers again.
TEST_F(HealthOps, UnreachableAgentAtLaunchIsNotDrained) {
  int64_t id = SubmitAndStart();
  ASSERT_EQ(link_.launches.size(), 1u);
  link_.launches[0].done(Unavailable("failed to connect to all addresses"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_PENDING);
  EXPECT_FALSE(Node(0).drain());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node02");
  HeartbeatRequest h;
  h.set_node("node01");
  EXPECT_TRUE(ctl_->Heartbeat(h).reregister());
}

// After a controller restart, a job the previous instance just started may not be on
// its batch host yet (the LaunchJob still in flight): it is launched again (the agent
// runs a job/restart pair once) instead of being requeued; an old one is lost.
TEST_F(HealthOps, RestartRelaunchesAJustStartedJobMissingFromRegistration) {
  int64_t fresh = SubmitAndStart();
  clock_.Advance(1);
  Restart();
  size_t launches = link_.launches.size();
  Register("node01");
  EXPECT_EQ(ctl_->jobs().Find(fresh)->state(), JOB_RUNNING);
  EXPECT_EQ(ctl_->jobs().Find(fresh)->restarts(), 0);
  ASSERT_EQ(link_.launches.size(), launches + 1);
  EXPECT_EQ(link_.launches.back().req.launch().job_id(), fresh);
  EXPECT_EQ(link_.launches.back().to.node, "node01");
  // Long after its start no launch can be in flight: lost with its node, requeued.
  clock_.Advance(kLaunchInFlightS + 1);
  Restart();
  Register("node01");
  EXPECT_EQ(ctl_->jobs().Find(fresh)->state(), JOB_PENDING);
  EXPECT_EQ(ctl_->jobs().Find(fresh)->restarts(), 1);
}

}  // namespace
}  // namespace sluice::ctld
