// Prolog / Epilog of a non-batch node in the agent: the Prolog runs once per job run
// before its first step there, a failure fails the step launch and is reported to the
// controller as prolog_failed; the Epilog runs on SIGNAL_KILL_STALE where a prolog ran;
// the batch host leaves both to its stepd; an allocated node where no step ran runs the
// Epilog when the controller ends the job there (with the job in the request), once.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "node_common/test_util.h"
#include "noded/agent.h"

namespace sluice {
namespace {

class Ends : public ControllerLink {
 public:
  Expected<RegisterNodeReply> Register(RegisterNodeRequest) override { return RegisterNodeReply(); }
  Expected<HeartbeatReply> Heartbeat(HeartbeatRequest) override { return HeartbeatReply(); }
  Status JobEnded(JobEndedRequest req) override {
    std::lock_guard<std::mutex> l(mu);
    ends.push_back(req);
    return Status::Ok();
  }
  std::mutex mu;
  std::vector<JobEndedRequest> ends;
};

class AgentNodeScripts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    tracker_ = std::make_unique<JobTracker>(dir_ + "/spool", &clock_);
    ASSERT_TRUE(tracker_->Init().ok());
    Script("prolog.sh", "echo prolog $SLURM_JOB_ID $SLURMD_NODENAME >> " + dir_ + "/log\n[ -e " +
                            dir_ + "/bad ] && exit 3\nexit 0\n");
    Script("epilog.sh", "echo epilog $SLURM_JOB_ID $SLURMD_NODENAME >> " + dir_ + "/log\n");
    AgentOptions o;
    o.node_name = "n2";
    o.cluster_name = "test";
    o.prolog = dir_ + "/prolog.sh";
    o.epilog = dir_ + "/epilog.sh";
    // A launcher whose stepd does not exist: only what happens before the spawn matters.
    launcher_ = std::make_unique<StepdLauncher>(dir_ + "/no-such-stepd");
    agent_ = std::make_unique<Agent>(o, &clock_, &ctl_, tracker_.get(), launcher_.get());
  }
  void Script(const std::string& name, const std::string& body) {
    std::ofstream(dir_ + "/" + name) << "#!/bin/sh\n" << body;
    chmod((dir_ + "/" + name).c_str(), 0755);
  }
  StepLaunch Step(int64_t job, int step, const std::string& batch_host) {
    StepLaunch s;
    s.set_job_id(job);
    s.set_step_id(step);
    s.mutable_job()->set_job_id(job);
    s.mutable_job()->add_alloc()->set_node(batch_host);
    s.mutable_job()->add_alloc()->set_node(batch_host == "n1" ? "n2" : "n1");
    s.mutable_local()->set_node("n2");
    s.add_argv("true");
    s.add_task_ids(1);
    return s;
  }
  std::string Log() {
    std::stringstream ss;
    ss << std::ifstream(dir_ + "/log").rdbuf();
    return ss.str();
  }
  void KillStale(int64_t job, const JobInfo* ended = nullptr) {
    SignalJobRequest req;
    req.set_job_id(job);
    req.set_kind(SIGNAL_KILL_STALE);
    if (ended) *req.mutable_job() = *ended;
    agent_->Signal(req);
  }

  testing::TempDir tmp_;
  std::string dir_;
  RealClock clock_;
  Ends ctl_;
  std::unique_ptr<JobTracker> tracker_;
  std::unique_ptr<StepdLauncher> launcher_;
  std::unique_ptr<Agent> agent_;
};

TEST_F(AgentNodeScripts, PrologOnceBeforeTheFirstStepEpilogAtTheEnd) {
  agent_->LaunchTasks(Step(7, 0, "n1"));
  agent_->LaunchTasks(Step(7, 1, "n1"));
  EXPECT_EQ(Log(), "prolog 7 n2\n");
  KillStale(7);
  KillStale(7);  // once
  EXPECT_EQ(Log(), "prolog 7 n2\nepilog 7 n2\n");
  std::lock_guard<std::mutex> l(ctl_.mu);
  EXPECT_TRUE(ctl_.ends.empty());
}

TEST_F(AgentNodeScripts, FailedPrologFailsTheLaunchAndIsReported) {
  std::ofstream(dir_ + "/bad") << "";
  LaunchTasksReply r = agent_->LaunchTasks(Step(8, 0, "n1"));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("Prolog error"), std::string::npos) << r.error();
  r = agent_->LaunchTasks(Step(8, 1, "n1"));  // not rerun
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(Log(), "prolog 8 n2\n");
  {
    std::lock_guard<std::mutex> l(ctl_.mu);
    ASSERT_EQ(ctl_.ends.size(), 1u);
    EXPECT_EQ(ctl_.ends[0].node(), "n2");
    EXPECT_EQ(ctl_.ends[0].report().job_id(), 8);
    EXPECT_TRUE(ctl_.ends[0].report().prolog_failed());
  }
  KillStale(8);  // no epilog where the prolog failed
  EXPECT_EQ(Log(), "prolog 8 n2\n");
}

// A step the controller gave up (its launch's outcome was unknown) is never started
// here afterwards; the job's other steps and its Epilog are not touched.
TEST_F(AgentNodeScripts, GivenUpStepIsNeverStartedAfterItsKill) {
  SignalJobRequest req;
  req.set_job_id(12);
  req.set_kind(SIGNAL_KILL_STALE);
  req.set_step_id(3);
  agent_->Signal(req);
  LaunchTasksReply r = agent_->LaunchTasks(Step(12, 3, "n1"));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error().find("given up"), std::string::npos) << r.error();
  r = agent_->LaunchTasks(Step(12, 4, "n1"));  // fails only for the missing stepd
  EXPECT_EQ(r.error().find("given up"), std::string::npos) << r.error();
  EXPECT_EQ(Log(), "prolog 12 n2\n");
}

TEST_F(AgentNodeScripts, BatchHostLeavesThemToItsStepd) {
  agent_->LaunchTasks(Step(9, 0, "n2"));
  KillStale(9);
  KillStale(9, &Step(9, 0, "n2").job());
  EXPECT_EQ(Log(), "");
}

TEST_F(AgentNodeScripts, NodeWithoutStepsRunsTheEpilogAtTheJobsEnd) {
  StepLaunch s = Step(11, 0, "n1");
  KillStale(11);  // no job given: nothing known to run it with
  EXPECT_EQ(Log(), "");
  KillStale(11, &s.job());
  KillStale(11, &s.job());  // once per run
  EXPECT_EQ(Log(), "epilog 11 n2\n");
  s.mutable_job()->set_restarts(1);  // the requeued run ends here too
  KillStale(11, &s.job());
  EXPECT_EQ(Log(), "epilog 11 n2\nepilog 11 n2\n");
}

}  // namespace
}  // namespace sluice
