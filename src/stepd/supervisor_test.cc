// Runs the real sluice-stepd binary on real scripts.
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "node_common/job_dir.h"
#include "node_common/node_lease.h"
#include "node_common/test_util.h"
#include "node_common/unix_socket.h"

namespace sluice {
namespace {

using testing::MakeLaunch;
using testing::ProcessAlive;
using testing::ReadFile;
using testing::StartStepd;
using testing::WaitExit;
using testing::WaitForFile;

class StepdTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    work_ = tmp_.path() + "/work";
    ASSERT_EQ(::mkdir(work_.c_str(), 0777), 0);
    ::chmod(work_.c_str(), 0777);
    agent_sock_ = tmp_.path() + "/agent.sock";
    auto fd = BindDatagram(agent_sock_);
    ASSERT_TRUE(fd.ok()) << fd.status().message();
    agent_fd_ = *fd;
  }
  void TearDown() override { ::close(agent_fd_); }

  // Writes the job dir and starts stepd; returns the JobDir.
  JobDir Launch(BatchLaunch l) {
    JobDir dir(tmp_.path() + "/" + JobDir::NameFor(l.job_id()));
    ::mkdir(dir.path().c_str(), 0755);
    l.set_agent_socket(agent_sock_);
    EXPECT_TRUE(WriteProtoFile(dir.Launch(), l).ok());
    stepd_pid_ = StartStepd(dir.path(), GetParam());
    return dir;
  }
  JobReport Finish(const JobDir& dir, int timeout_ms = 10000) {
    EXPECT_EQ(WaitExit(stepd_pid_, timeout_ms), 0) << ReadFile(dir.Log());
    JobReport r;
    EXPECT_TRUE(ReadProtoFile(dir.StatusFile(), &r).ok()) << ReadFile(dir.Log());
    return r;
  }
  std::string Notification() {
    char buf[64] = {};
    ssize_t n = ::recv(agent_fd_, buf, sizeof buf, MSG_DONTWAIT);
    return n > 0 ? std::string(buf, n) : "";
  }
  StepdReply Call(const JobDir& dir, StepdOp op, int sig = 0, bool batch_only = false) {
    StepdRequest req;
    req.set_op(op);
    req.set_signal(sig);
    req.set_batch_only(batch_only);
    auto reply = CallStepd(dir.path(), req);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    return reply.ok() ? *reply : StepdReply();
  }
  pid_t ReadPid(const std::string& path) {
    EXPECT_TRUE(WaitForFile(path, 5000)) << path;
    usleep(20000);  // let the shell finish writing
    return static_cast<pid_t>(std::atoi(ReadFile(path).c_str()));
  }

  testing::TempDir tmp_;
  std::string work_, agent_sock_;
  int agent_fd_ = -1;
  pid_t stepd_pid_ = 0;
};

TEST_P(StepdTest, CompletedWritesOutputAndNotifies) {
  JobDir dir =
      Launch(MakeLaunch(11, "#!/bin/sh\necho hello $1 $SLURM_JOB_ID\necho oops >&2\n", work_));
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_COMPLETED);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.job_id(), 11);
  EXPECT_GT(r.end_time(), 0);
  EXPECT_EQ(ReadFile(work_ + "/out.txt"), "hello 11\noops\n");
  EXPECT_EQ(Notification(), "11");
  EXPECT_TRUE(PathExists(dir.PidFile()));
}

TEST_P(StepdTest, ArgvSeparateStderrAndAppend) {
  BatchLaunch l = MakeLaunch(12, "#!/bin/sh\necho out $1 $2\necho err >&2\n", work_);
  l.mutable_job()->mutable_spec()->add_argv("a");
  l.mutable_job()->mutable_spec()->add_argv("b c");
  l.set_stderr_path(work_ + "/err.txt");
  l.set_append_output(true);
  std::string old = "previous\n";
  FILE* f = fopen((work_ + "/out.txt").c_str(), "w");
  fputs(old.c_str(), f);
  fclose(f);
  JobDir dir = Launch(l);
  EXPECT_EQ(Finish(dir).state(), JOB_COMPLETED);
  EXPECT_EQ(ReadFile(work_ + "/out.txt"), "previous\nout a b c\n");
  EXPECT_EQ(ReadFile(work_ + "/err.txt"), "err\n");
}

TEST_P(StepdTest, ReportNamesItsRun) {
  // The agent may already hold the next run's launch when it reads this report.
  BatchLaunch l = MakeLaunch(24, "#!/bin/sh\nexit 0\n", work_);
  l.mutable_job()->set_restarts(3);
  JobReport r = Finish(Launch(l));
  ASSERT_TRUE(r.has_restarts());
  EXPECT_EQ(r.restarts(), 3);
}

TEST_P(StepdTest, NonZeroExitIsFailed) {
  JobDir dir = Launch(MakeLaunch(13, "#!/bin/sh\nexit 3\n", work_));
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_FAILED);
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(r.term_signal(), 0);
}

TEST_P(StepdTest, KilledBySignalIsFailedWithSignal) {
  JobDir dir = Launch(MakeLaunch(14, "#!/bin/sh\nkill -9 $$\n", work_));
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_FAILED);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.term_signal(), SIGKILL);
}

TEST_P(StepdTest, TimeLimitTermThenKillWholeTree) {
  // The script and its child ignore SIGTERM, so only the SIGKILL after KillWait ends them.
  BatchLaunch l = MakeLaunch(
      15,
      "#!/bin/bash\ntrap '' TERM\nsleep 30 &\necho $! > " + work_ + "/child.pid\nwait\nsleep 30\n",
      work_);
  l.set_time_limit_s(1);
  l.set_kill_wait_s(1);
  JobDir dir = Launch(l);
  pid_t child = ReadPid(work_ + "/child.pid");
  ASSERT_TRUE(ProcessAlive(child));
  int64_t t0 = RealClock::MonotonicMs();
  JobReport r = Finish(dir);
  int64_t took = RealClock::MonotonicMs() - t0;
  EXPECT_EQ(r.state(), JOB_TIMEOUT);
  EXPECT_EQ(r.term_signal(), SIGKILL);
  EXPECT_GE(took, 1000);  // limit reached at ~1 s, KILL one KillWait later
  EXPECT_LT(took, 5000);
  EXPECT_FALSE(ProcessAlive(child));
}

TEST_P(StepdTest, NodeLeaseRunningOutKillsTheJobAsNodeFail) {
  // The script and its child ignore SIGTERM: only the fence's SIGKILL ends them.
  BatchLaunch l = MakeLaunch(
      23, "#!/bin/bash\ntrap '' TERM\nsleep 30 &\necho $! > " + work_ + "/child.pid\nwait\n",
      work_);
  l.set_kill_wait_s(30);
  std::string lease = NodeLeasePath(tmp_.path());
  RealClock clock;
  ASSERT_TRUE(RenewNodeLease(lease, clock.NowMs() + 1'500).ok());
  l.set_fence_lease(lease);
  JobDir dir = Launch(l);
  pid_t child = ReadPid(work_ + "/child.pid");
  ASSERT_TRUE(ProcessAlive(child));
  // Renewed once in time: the job goes on past the first end.
  ASSERT_TRUE(RenewNodeLease(lease, clock.NowMs() + 1'500).ok());
  usleep(1'000'000);
  ASSERT_TRUE(ProcessAlive(child));
  int64_t fence_at = *ReadNodeLease(lease);
  JobReport r = Finish(dir);
  int64_t late = clock.NowMs() - fence_at;
  EXPECT_EQ(r.state(), JOB_NODE_FAIL);
  EXPECT_EQ(r.term_signal(), SIGKILL);
  EXPECT_FALSE(ProcessAlive(child));
  EXPECT_GE(late, 0);
  EXPECT_LT(late, 1'000) << "fenced too late after the lease ended";
}

TEST_P(StepdTest, CancelKillsGrandchildren) {
  JobDir dir = Launch(MakeLaunch(
      16, "#!/bin/bash\n(setsid sleep 60 & echo $! > " + work_ + "/gc.pid; wait)&\nwait\n", work_));
  pid_t gc = ReadPid(work_ + "/gc.pid");
  ASSERT_TRUE(ProcessAlive(gc));
  StepdReply ping = Call(dir, STEPD_PING);
  EXPECT_TRUE(ping.ok());
  EXPECT_GT(ping.job_pid(), 0);
  EXPECT_TRUE(Call(dir, STEPD_CANCEL).ok());
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_CANCELLED);
  EXPECT_FALSE(ProcessAlive(gc));
  EXPECT_FALSE(PathExists(dir.Socket()));
}

TEST_P(StepdTest, SignalReachesTrap) {
  JobDir dir = Launch(MakeLaunch(17,
                                 "#!/bin/bash\ntrap 'echo got USR1; exit 0' USR1\ntouch " + work_ +
                                     "/ready\nwhile :; do sleep 0.05; done\n",
                                 work_));
  ASSERT_TRUE(WaitForFile(work_ + "/ready", 5000));
  // To the whole job: the foreground `sleep` dies of it too, then the trap runs.
  EXPECT_TRUE(Call(dir, STEPD_SIGNAL, SIGUSR1).ok());
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_COMPLETED);
  EXPECT_NE(ReadFile(work_ + "/out.txt").find("got USR1\n"), std::string::npos);
}

TEST_P(StepdTest, BatchOnlySignalReachesOnlyTheScript) {
  JobDir dir = Launch(MakeLaunch(24,
                                 "#!/bin/bash\ntrap 'echo got USR2; exit 0' USR2\ntouch " + work_ +
                                     "/ready\nwhile :; do sleep 0.05; done\n",
                                 work_));
  ASSERT_TRUE(WaitForFile(work_ + "/ready", 5000));
  EXPECT_TRUE(Call(dir, STEPD_SIGNAL, SIGUSR2, /*batch_only=*/true).ok());
  EXPECT_EQ(Finish(dir).state(), JOB_COMPLETED);
  EXPECT_EQ(ReadFile(work_ + "/out.txt"), "got USR2\n");
}

TEST_P(StepdTest, KillIsImmediateAndInvalidSignalRejected) {
  BatchLaunch l =
      MakeLaunch(18, "#!/bin/bash\ntrap '' TERM\ntouch " + work_ + "/ready\nsleep 60\n", work_);
  l.set_kill_wait_s(30);
  JobDir dir = Launch(l);
  ASSERT_TRUE(WaitForFile(work_ + "/ready", 5000));
  EXPECT_FALSE(Call(dir, STEPD_SIGNAL, 0).ok());
  EXPECT_FALSE(Call(dir, STEPD_SIGNAL, 1000).ok());
  EXPECT_TRUE(Call(dir, STEPD_KILL).ok());
  JobReport r = Finish(dir, 3000);
  EXPECT_EQ(r.state(), JOB_CANCELLED);
}

TEST_P(StepdTest, SetTimeLimitShortensLimit) {
  JobDir dir = Launch(MakeLaunch(19, "#!/bin/sh\ntouch " + work_ + "/ready\nsleep 60\n", work_));
  ASSERT_TRUE(WaitForFile(work_ + "/ready", 5000));
  StepdRequest req;
  req.set_op(STEPD_SET_TIME_LIMIT);
  req.set_time_limit_s(1);
  ASSERT_TRUE(CallStepd(dir.path(), req).ok());
  EXPECT_EQ(Finish(dir).state(), JOB_TIMEOUT);
}

TEST_P(StepdTest, BadWorkDirFallsBackToTmp) {
  BatchLaunch l = MakeLaunch(20, "#!/bin/sh\npwd\necho $SLURM_SUBMIT_DIR\n", work_);
  l.mutable_job()->mutable_spec()->set_work_dir("/nonexistent/dir");
  JobDir dir = Launch(l);
  EXPECT_EQ(Finish(dir).state(), JOB_COMPLETED);
  EXPECT_EQ(ReadFile(work_ + "/out.txt"), "/tmp\n/nonexistent/dir\n");
}

TEST_P(StepdTest, MalformedLaunchFileFails) {
  JobDir dir(tmp_.path() + "/job.21");
  ::mkdir(dir.path().c_str(), 0755);
  ASSERT_TRUE(WriteFileAtomic(dir.Launch(), "\xff\xff\xff garbage", 0600).ok());
  stepd_pid_ = StartStepd(dir.path(), GetParam());
  JobReport r = Finish(dir);
  EXPECT_EQ(r.state(), JOB_FAILED);
  EXPECT_EQ(r.job_id(), 21);
  EXPECT_NE(ReadFile(dir.Log()).find("malformed"), std::string::npos);
}

TEST_P(StepdTest, RunsAsJobUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  BatchLaunch l = MakeLaunch(22, "#!/bin/sh\nid -u; id -g\n", work_);
  l.mutable_job()->set_uid(65534);
  l.mutable_job()->set_gid(65534);
  JobDir dir = Launch(l);
  EXPECT_EQ(Finish(dir).state(), JOB_COMPLETED);
  EXPECT_EQ(ReadFile(work_ + "/out.txt"), "65534\n65534\n");
}

INSTANTIATE_TEST_SUITE_P(Tracking, StepdTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Cgroup" : "ProcessGroup"; });

TEST(StepdOomTest, MemoryLimitGivesOutOfMemory) {
  if (::access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) != 0 &&
      ::access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0) {
    GTEST_SKIP() << "no writable memory cgroup";
  }
  testing::TempDir tmp;
  std::string work = tmp.path();
  BatchLaunch l =
      MakeLaunch(23, "#!/bin/sh\nhead -c 300000000 /dev/zero | tail -n 1 >/dev/null\n", work);
  l.mutable_local()->set_mem_mb(32);
  JobDir dir(tmp.path() + "/job.23");
  ::mkdir(dir.path().c_str(), 0755);
  ASSERT_TRUE(WriteProtoFile(dir.Launch(), l).ok());
  pid_t pid = StartStepd(dir.path());
  ASSERT_EQ(WaitExit(pid, 20000), 0);
  JobReport r;
  ASSERT_TRUE(ReadProtoFile(dir.StatusFile(), &r).ok());
  EXPECT_EQ(r.state(), JOB_OUT_OF_MEMORY);
}

}  // namespace
}  // namespace sluice
