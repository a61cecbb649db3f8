// Agent against a fake controller, launching real sluice-stepd processes.
#include "noded/agent.h"

#include <gtest/gtest.h>
#include <sys/time.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "node_common/job_dir.h"
#include "node_common/node_lease.h"
#include "node_common/test_util.h"
#include "noded/end_listener.h"

namespace sluice {
namespace {

class FakeController : public ControllerLink {
 public:
  Expected<RegisterNodeReply> Register(RegisterNodeRequest req) override {
    std::lock_guard<std::mutex> l(mu);
    registers.push_back(req);
    if (down) return Unavailable(down_message);
    RegisterNodeReply r;
    for (int64_t id : kill_on_register) r.add_kill_job_ids(id);
    r.set_session(++session);
    if (during_register) during_register();
    return r;
  }
  Expected<HeartbeatReply> Heartbeat(HeartbeatRequest req) override {
    std::lock_guard<std::mutex> l(mu);
    heartbeats.push_back(req);
    if (down) return Unavailable(down_message);
    HeartbeatReply r;
    r.set_reregister(reregister);
    for (int64_t id : kill_on_heartbeat) r.add_kill_job_ids(id);
    if (during_heartbeat) during_heartbeat();
    return r;
  }
  Status JobEnded(JobEndedRequest req) override {
    std::lock_guard<std::mutex> l(mu);
    if (down || refuse_ends) return Unavailable("down");
    if (on_end) on_end(req.report());
    ends.push_back(req.report());
    return Status::Ok();
  }
  RelayReply Relay(RelayRequest req) override {
    std::lock_guard<std::mutex> l(mu);
    relays.push_back(req);
    return RelayReply();
  }
  std::vector<RelayRequest> relays;
  std::function<void(const JobReport&)> on_end;  // runs while the agent waits for the reply
  std::mutex mu;
  bool down = false, refuse_ends = false, reregister = false;
  std::string down_message = "controller: Deadline Exceeded";  // how a `down` call fails
  std::vector<int64_t> kill_on_register, kill_on_heartbeat;
  std::function<void()> during_heartbeat;  // runs before the heartbeat reply returns
  int64_t session = 0;                     // the last RegisterNodeReply.session given
  std::function<void()> during_register;   // runs before the registration reply returns
  std::vector<RegisterNodeRequest> registers;
  std::vector<HeartbeatRequest> heartbeats;
  std::vector<JobReport> ends;
};

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = tmp_.path();
    spool_ = tmp_.path() + "/spool";
    tracker_ = std::make_unique<JobTracker>(spool_, &real_clock_);
    ASSERT_TRUE(tracker_->Init().ok());
    MakeAgent();
  }
  void MakeAgent(const std::string& fence_lease = "") {
    AgentOptions o;
    o.fence_lease = fence_lease;
    o.slurmd_timeout_ms = 4'000;
    o.node_name = "n1";
    o.cpus = 8;
    o.real_memory_mb = 1000;
    GpuInfo g;
    g.set_index(0);
    o.gpus.push_back(g);
    o.heartbeat_interval_ms = 1000;
    o.cluster_name = "test";
    o.agent_socket = spool_ + "/agent.sock";
    o.ctld_host = "127.0.0.1";
    launcher_ =
        std::make_unique<StepdLauncher>(testing::SiblingBinary("sluice-stepd"), /*prestart=*/true);
    agent_ = std::make_unique<Agent>(o, &clock_, &ctl_, tracker_.get(), launcher_.get());
  }
  BatchLaunch Job(int64_t id, const std::string& body) {
    BatchLaunch l = testing::MakeLaunch(id, "#!/bin/bash\n" + body, work_);
    l.mutable_local()->set_node("n1");
    return l;
  }
  bool WaitFinished(int64_t id, int timeout_ms = 10000) {
    return testing::WaitForFile(JobDir(tracker_->DirFor(id)).StatusFile(), timeout_ms);
  }
  // Ticks until the controller saw the end of `id`.
  const JobReport* WaitReported(int64_t id) {
    for (int i = 0; i < 500; ++i) {
      agent_->Tick();
      std::lock_guard<std::mutex> l(ctl_.mu);
      for (const auto& r : ctl_.ends) {
        if (r.job_id() == id) return &r;
      }
      usleep(20000);
    }
    return nullptr;
  }

  testing::TempDir tmp_;
  std::string work_, spool_;
  RealClock real_clock_;
  ManualClock clock_{1000};
  FakeController ctl_;
  std::unique_ptr<JobTracker> tracker_;
  std::unique_ptr<StepdLauncher> launcher_;
  std::unique_ptr<Agent> agent_;
};

TEST_F(AgentTest, RegistersResourcesAndSpoolJobs) {
  ASSERT_TRUE(tracker_->Create(Job(5, "exit 0\n")).ok());
  JobReport done;
  done.set_job_id(5);
  done.set_finished(true);
  done.set_state(JOB_FAILED);
  done.set_exit_code(3);
  ASSERT_TRUE(WriteProtoFile(JobDir(tracker_->DirFor(5)).StatusFile(), done).ok());
  ASSERT_TRUE(tracker_->Create(Job(6, "exit 0\n")).ok());
  ASSERT_TRUE(tracker_->RecordStepdPid(6, 999999).ok());  // stepd vanished
  ctl_.refuse_ends = true;
  agent_->Tick();  // job 6 looks lost: reported running until a later scan confirms it
  ASSERT_EQ(ctl_.registers.size(), 1u);
  const auto& reg = ctl_.registers[0];
  EXPECT_EQ(reg.node(), "n1");
  EXPECT_EQ(reg.cpus(), 8);
  EXPECT_EQ(reg.gpus_size(), 1);
  ASSERT_EQ(reg.jobs_size(), 2);
  EXPECT_TRUE(reg.jobs(0).finished());
  EXPECT_EQ(reg.jobs(0).exit_code(), 3);
  EXPECT_FALSE(reg.jobs(1).finished());
  EXPECT_TRUE(agent_->registered());
  // Ends are retried until acknowledged, then the directories go.
  EXPECT_TRUE(tracker_->Inspect(5).ok());
  ctl_.refuse_ends = false;
  clock_.AdvanceMs(2500);
  agent_->Tick();
  ASSERT_EQ(ctl_.ends.size(), 2u);
  EXPECT_EQ(ctl_.ends[1].state(), JOB_FAILED);
  EXPECT_FALSE(tracker_->Inspect(5).ok());
  EXPECT_FALSE(tracker_->Inspect(6).ok());
}

// The agent stopped between writing launch.pb and spawning the stepd: none of the job ran,
// so its end is a node failure (requeued by the controller), not the job's own FAILED.
TEST_F(AgentTest, LaunchCutShortBeforeTheStepdIsANodeFailure) {
  ASSERT_TRUE(tracker_->Create(Job(8, "exit 0\n")).ok());
  struct timeval old[2] = {{time(nullptr) - 60, 0}, {time(nullptr) - 60, 0}};
  ASSERT_EQ(::utimes(JobDir(tracker_->DirFor(8)).Launch().c_str(), old), 0);
  agent_->Tick();  // suspected lost: reported running until confirmed
  clock_.AdvanceMs(2500);
  const JobReport* end = WaitReported(8);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->state(), JOB_NODE_FAIL);
  EXPECT_EQ(end->exit_code(), 0);
}

TEST_F(AgentTest, RelayedCallsGoOutInThisNodesNameWithItsStepIoAddress) {
  RelayRequest launch;
  launch.set_node("someone-else");
  launch.mutable_launch_step()->set_job_id(4);
  agent_->Relay(launch);
  launch.mutable_launch_step()->set_io_host("10.1.2.3");  // srun chose its own address
  agent_->Relay(launch);
  std::lock_guard<std::mutex> l(ctl_.mu);
  ASSERT_EQ(ctl_.relays.size(), 2u);
  EXPECT_EQ(ctl_.relays[0].node(), "n1");
  EXPECT_EQ(ctl_.relays[0].launch_step().io_host(), "127.0.0.1");  // route toward ctld_host
  EXPECT_EQ(ctl_.relays[1].launch_step().io_host(), "10.1.2.3");
}

TEST_F(AgentTest, LaunchRunsOnceAndReportsCompletion) {
  agent_->Tick();
  std::string body = "echo run >> " + work_ + "/runs\nsleep 0.3\n";
  int64_t t0 = RealClock::MonotonicMs();
  LaunchJobReply r = agent_->Launch(Job(7, body));
  int64_t took = RealClock::MonotonicMs() - t0;
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_LT(took, 100) << "launch must not block";
  EXPECT_TRUE(agent_->Launch(Job(7, body)).ok());  // duplicate: acknowledged, not re-run
  const JobReport* end = WaitReported(7);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->state(), JOB_COMPLETED);
  EXPECT_EQ(testing::ReadFile(work_ + "/runs"), "run\n");
  EXPECT_FALSE(tracker_->Inspect(7).ok());
  BatchLaunch l = testing::MakeLaunch(7, "x", work_);
  EXPECT_EQ(l.cluster_name(), "testcluster");
}

// The controller may requeue a job and launch its next run here while the agent still
// waits for the reply to the previous run's end: the new run's directory must survive.
// A launch sent before the agent's last registration is refused unstarted: that
// registration already told the controller the run was not here. A launch that arrives
// while a registration is on its way waits for it, then is judged by its session.
TEST_F(AgentTest, LaunchFromBeforeTheLastRegistrationIsRefusedUnstarted) {
  agent_->Tick();  // session 1
  std::string body = "echo run >> " + work_ + "/runs\n";
  LaunchJobReply stale;
  std::thread late;
  ctl_.during_register = [&] {
    late = std::thread([&] { stale = agent_->Launch(Job(8, body), /*session=*/1); });
    usleep(100'000);  // the launch is in the agent now, waiting for the registration
  };
  ctl_.reregister = true;
  clock_.Advance(2);
  agent_->Tick();  // heartbeat -> registers again: session 2
  late.join();
  EXPECT_FALSE(stale.ok());
  EXPECT_TRUE(stale.stale());
  EXPECT_FALSE(tracker_->Inspect(8).ok());
  ctl_.during_register = nullptr;
  ctl_.reregister = false;
  LaunchJobReply current = agent_->Launch(Job(8, body), /*session=*/2);
  ASSERT_TRUE(current.ok()) << current.error();
  EXPECT_NE(WaitReported(8), nullptr);
  EXPECT_EQ(testing::ReadFile(work_ + "/runs"), "run\n");
  // Ends and registrations name the run (JobInfo.restarts) they are about.
  ASSERT_FALSE(ctl_.ends.empty());
  EXPECT_TRUE(ctl_.ends.back().has_restarts());
}

// Registrations report each job's run, so the controller can tell an old run from the
// current one.
TEST_F(AgentTest, RegistrationReportsTheRunOfEachJob) {
  agent_->Tick();
  BatchLaunch l = Job(9, "sleep 5\n");
  l.mutable_job()->set_restarts(3);
  ASSERT_TRUE(agent_->Launch(l).ok());
  ctl_.reregister = true;
  clock_.Advance(2);
  agent_->Tick();
  std::lock_guard<std::mutex> lock(ctl_.mu);
  ASSERT_FALSE(ctl_.registers.empty());
  const RegisterNodeRequest& reg = ctl_.registers.back();
  ASSERT_EQ(reg.jobs_size(), 1);
  EXPECT_EQ(reg.jobs(0).job_id(), 9);
  ASSERT_TRUE(reg.jobs(0).has_restarts());
  EXPECT_EQ(reg.jobs(0).restarts(), 3);
}

TEST_F(AgentTest, NextRunLaunchedDuringTheEndReportKeepsItsDirectory) {
  agent_->Tick();
  ASSERT_TRUE(agent_->Launch(Job(30, "exit 1\n")).ok());
  BatchLaunch next = Job(30, "touch " + work_ + "/r30\nsleep 60\n");
  next.mutable_job()->set_restarts(1);
  ctl_.on_end = [&](const JobReport& r) {
    if (r.job_id() == 30 && r.exit_code() == 1) EXPECT_TRUE(agent_->Launch(next).ok());
  };
  ASSERT_NE(WaitReported(30), nullptr);
  agent_->Tick();
  EXPECT_TRUE(testing::WaitForFile(work_ + "/r30", 5000)) << "the next run lost its directory";
  auto job = tracker_->Inspect(30);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->phase, TrackedJob::Phase::kRunning);
  SignalJobRequest s;
  s.set_job_id(30);
  s.set_kind(SIGNAL_CANCEL);
  agent_->Signal(s);
  EXPECT_TRUE(WaitFinished(30, 5000));
}

TEST_F(AgentTest, AKillOfALostRunSparesTheNextRunLaunchedBeforeIt) {
  agent_->Tick();
  BatchLaunch next = Job(31, "touch " + work_ + "/r31\nsleep 60\n");
  next.mutable_job()->set_restarts(1);
  ASSERT_TRUE(agent_->Launch(next).ok());
  ASSERT_TRUE(testing::WaitForFile(work_ + "/r31", 5000));
  SignalJobRequest stale;  // for run 0, lost with a node; it arrives after run 1's launch
  stale.set_job_id(31);
  stale.set_kind(SIGNAL_KILL_STALE);
  *stale.mutable_job() = Job(31, "").job();
  agent_->Signal(stale);
  usleep(200'000);
  auto job = tracker_->Inspect(31);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->phase, TrackedJob::Phase::kRunning);
  stale.mutable_job()->set_restarts(1);  // a kill of this very run still kills it
  agent_->Signal(stale);
  EXPECT_TRUE(WaitFinished(31, 5000));
}

// The heartbeat listed run 0, which the controller had requeued; its "kill" answer comes
// back after the next run was launched here: that run is spared.
TEST_F(AgentTest, AHeartbeatKillSparesARunLaunchedAfterTheHeartbeatListedTheOldOne) {
  agent_->Tick();
  ASSERT_TRUE(agent_->Launch(Job(32, "touch " + work_ + "/r32.0\nsleep 60\n")).ok());
  ASSERT_TRUE(testing::WaitForFile(work_ + "/r32.0", 5000));
  BatchLaunch next = Job(32, "touch " + work_ + "/r32.1\nsleep 60\n");
  next.mutable_job()->set_restarts(1);
  ctl_.kill_on_heartbeat = {32};
  ctl_.during_heartbeat = [&] {
    EXPECT_TRUE(agent_->Launch(next).ok());
    EXPECT_TRUE(testing::WaitForFile(work_ + "/r32.1", 5000));
  };
  clock_.Advance(2);
  agent_->Tick();
  ASSERT_EQ(ctl_.heartbeats.size(), 1u);
  ASSERT_EQ(ctl_.heartbeats[0].running_job_ids_size(), 1);
  ctl_.during_heartbeat = nullptr;
  ctl_.kill_on_heartbeat.clear();
  usleep(200'000);
  auto job = tracker_->Inspect(32);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->phase, TrackedJob::Phase::kRunning) << "the new run was killed";
  SignalJobRequest s;  // and its end is still reported
  s.set_job_id(32);
  s.set_kind(SIGNAL_CANCEL);
  agent_->Signal(s);
  const JobReport* end = WaitReported(32);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->state(), JOB_CANCELLED);
  EXPECT_EQ(end->restarts(), 1);
}

TEST_F(AgentTest, LaunchValidation) {
  BatchLaunch wrong = Job(8, "exit 0\n");
  wrong.mutable_local()->set_node("n2");
  EXPECT_FALSE(agent_->Launch(wrong).ok());
  BatchLaunch empty = Job(9, "");
  empty.mutable_job()->mutable_spec()->clear_script();
  EXPECT_FALSE(agent_->Launch(empty).ok());
  EXPECT_FALSE(agent_->Launch(Job(0, "exit 0\n")).ok());
}

TEST_F(AgentTest, CancelAndExitCodeReported) {
  agent_->Tick();
  ASSERT_TRUE(agent_->Launch(Job(10, "touch " + work_ + "/ready\nsleep 60\n")).ok());
  ASSERT_TRUE(agent_->Launch(Job(11, "exit 3\n")).ok());
  ASSERT_TRUE(testing::WaitForFile(work_ + "/ready", 5000));
  SignalJobRequest s;
  s.set_job_id(10);
  s.set_kind(SIGNAL_CANCEL);
  EXPECT_TRUE(agent_->Signal(s).found());
  const JobReport* c = WaitReported(10);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->state(), JOB_CANCELLED);
  const JobReport* f = WaitReported(11);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->state(), JOB_FAILED);
  EXPECT_EQ(f->exit_code(), 3);
  s.set_job_id(12345);
  EXPECT_FALSE(agent_->Signal(s).found());
}

TEST_F(AgentTest, AdoptsRunningJobsAfterRestartAndKillsStale) {
  agent_->Tick();
  ASSERT_TRUE(agent_->Launch(Job(20, "touch " + work_ + "/r20\nsleep 60\n")).ok());
  ASSERT_TRUE(agent_->Launch(Job(21, "touch " + work_ + "/r21\nsleep 60\n")).ok());
  ASSERT_TRUE(testing::WaitForFile(work_ + "/r20", 5000));
  ASSERT_TRUE(testing::WaitForFile(work_ + "/r21", 5000));
  // "Restart": a new agent and launcher on the same spool; the controller says 21 is stale.
  launcher_->Reap();
  MakeAgent();
  ctl_.kill_on_register = {21};
  agent_->Tick();
  ASSERT_EQ(ctl_.registers.size(), 2u);
  const auto& reg = ctl_.registers[1];
  ASSERT_EQ(reg.jobs_size(), 2);
  EXPECT_EQ(reg.jobs(0).state(), JOB_RUNNING);
  EXPECT_FALSE(reg.jobs(0).finished());
  ASSERT_TRUE(WaitFinished(21, 20000));
  SignalJobRequest s;
  s.set_job_id(20);
  s.set_kind(SIGNAL_CANCEL);
  EXPECT_TRUE(agent_->Signal(s).found());
  const JobReport* c = WaitReported(20);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->state(), JOB_CANCELLED);
  for (const auto& e : ctl_.ends) EXPECT_NE(e.job_id(), 21) << "stale job must not be reported";
  agent_->Tick();
  EXPECT_FALSE(tracker_->Inspect(21).ok());
}

TEST_F(AgentTest, HeartbeatFailureAndReregister) {
  agent_->Tick();
  EXPECT_EQ(ctl_.registers.size(), 1u);
  clock_.Advance(2);
  ctl_.down = true;
  agent_->Tick();  // heartbeat fails
  EXPECT_FALSE(agent_->registered());
  clock_.Advance(2);
  agent_->Tick();  // registration fails
  EXPECT_FALSE(agent_->registered());
  ctl_.down = false;
  clock_.Advance(2);
  agent_->Tick();
  EXPECT_TRUE(agent_->registered());
  EXPECT_EQ(ctl_.registers.size(), 3u);
  ctl_.reregister = true;
  clock_.Advance(2);
  agent_->Tick();
  EXPECT_EQ(ctl_.registers.size(), 4u);
  EXPECT_EQ(ctl_.heartbeats.size(), 2u);
}

TEST_F(AgentTest, EndListenerWakes) {
  EndListener listener;
  std::atomic<int> woken{0};
  ASSERT_TRUE(listener.Start(spool_ + "/agent.sock", [&] { ++woken; }).ok());
  agent_->Tick();
  ASSERT_TRUE(agent_->Launch(Job(30, "exit 0\n")).ok());
  for (int i = 0; i < 300 && woken == 0; ++i) usleep(10000);
  EXPECT_GE(woken.load(), 1);
}

// Self-fencing (node_common/node_lease.h): SlurmdTimeout 4 s, so a lease lasts 3.5 s from
// the send time of the last answered call.
TEST_F(AgentTest, LeaseIsRenewedByAnswersAndRefusedConnectionsOnly) {
  const std::string lease = NodeLeasePath(spool_);
  MakeAgent(lease);
  agent_->Tick();  // registers at 1000 s
  EXPECT_EQ(ReadNodeLease(lease), 1'003'500);
  clock_.AdvanceMs(1'000);
  agent_->Tick();  // heartbeat answered
  EXPECT_EQ(ReadNodeLease(lease), 1'004'500);
  ctl_.down = true;  // a network cut: calls time out
  clock_.AdvanceMs(1'000);
  agent_->Tick();
  clock_.AdvanceMs(1'000);
  agent_->Tick();
  EXPECT_EQ(ReadNodeLease(lease), 1'004'500);
  // The controller's port refuses: it is down or restarting, and counts SlurmdTimeout
  // from its own start, so the jobs may keep running (counted from when the refusal may
  // have been seen: the channel's last connect attempt).
  ctl_.down_message =
      "controller: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:6817: "
      "Failed to connect to remote host: Connection refused";
  clock_.AdvanceMs(1'000);
  agent_->Tick();
  EXPECT_EQ(ReadNodeLease(lease), 1'004'000 - kRefusalAgeMs + 3'500);
}

TEST_F(AgentTest, FencedNodeRefusesLaunchesUntilTheControllerAnswersAgain) {
  clock_.Set(RealClock().Now());  // the stepds compare the lease with the real clock
  const std::string lease = NodeLeasePath(spool_);
  MakeAgent(lease);
  agent_->Tick();
  ASSERT_TRUE(agent_->registered());
  ctl_.down = true;
  clock_.AdvanceMs(3'500);
  agent_->Tick();  // the lease ran out
  EXPECT_FALSE(agent_->registered());
  LaunchJobReply r = agent_->Launch(Job(40, "exit 0\n"));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("node fenced"), std::string::npos) << r.error();
  EXPECT_FALSE(tracker_->Inspect(40).ok()) << "a refused launch left a job directory";
  StepLaunch step;
  step.set_job_id(40);
  step.add_argv("true");
  step.add_task_ids(0);
  LaunchTasksReply t = agent_->LaunchTasks(step);
  EXPECT_NE(t.error().find("node fenced"), std::string::npos) << t.error();
  ctl_.down = false;
  clock_.Set(RealClock().Now());
  agent_->Tick();  // registers again: a new lease
  ASSERT_TRUE(agent_->registered());
  ASSERT_TRUE(agent_->Launch(Job(41, "exit 0\n")).ok());
  ASSERT_TRUE(WaitFinished(41));
  const JobReport* end = WaitReported(41);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->state(), JOB_COMPLETED);
}

}  // namespace
}  // namespace sluice
