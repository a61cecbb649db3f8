// StepSupervisor (sluice-stepd --step) end to end: a fake srun listener, the real binary.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "node.pb.h"
#include "node_common/job_dir.h"
#include "node_common/node_lease.h"
#include "node_common/test_util.h"

namespace sluice {
namespace {

using testing::ProcessAlive;
using testing::ReadFile;
using testing::TempDir;
using testing::WaitExit;
using testing::WaitForFile;

int64_t Now() { return RealClock::MonotonicMs(); }

class StepSrunLossTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(listen_fd_, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(listen_fd_, 4), 0);
    socklen_t len = sizeof a;
    ASSERT_EQ(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
  }
  void TearDown() override {
    if (conn_ >= 0) ::close(conn_);
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  // Starts `sluice-stepd --step` on a one-task step running `bash -c script` in
  // work(), with KillWait `kill_wait_s`, and accepts its I/O connection.
  pid_t StartStep(const std::string& script, int kill_wait_s, const std::string& fence_lease = "") {
    std::string dir = spool_.path() + "/step.7.0";
    EXPECT_EQ(::mkdir(dir.c_str(), 0700), 0);
    BatchLaunch b = testing::MakeLaunch(7, "", work());
    StepLaunch l;
    l.set_job_id(7);
    l.set_step_id(0);
    *l.mutable_job() = b.job();
    *l.mutable_local() = b.local();
    l.add_step_nodes("n1");
    l.add_tasks_per_node(1);
    l.add_task_ids(0);
    l.set_ntasks(1);
    for (const char* a : {"/bin/bash", "-c"}) l.add_argv(a);
    l.add_argv(script);
    l.add_env("PATH=/usr/local/bin:/usr/bin:/bin");
    l.set_work_dir(work());
    l.set_io_host("127.0.0.1");
    l.set_io_port(port_);
    l.set_io_key("key");
    l.set_kill_wait_s(kill_wait_s);
    l.set_fence_lease(fence_lease);
    EXPECT_TRUE(WriteProtoFile(dir + "/launch.pb", l, 0600, false).ok());
    std::string bin = testing::SiblingBinary("sluice-stepd");
    pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("SLUICE_STEPD_CGROUPS", "none", 1);
      ::execl(bin.c_str(), bin.c_str(), "--step", dir.c_str(), nullptr);
      ::_exit(127);
    }
    pollfd p{listen_fd_, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 10'000), 1);
    conn_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    EXPECT_GE(conn_, 0);
    return pid;
  }
  void CloseSrun() {
    ::close(conn_);
    conn_ = -1;
  }
  std::string work() const { return work_.path(); }

  TempDir spool_, work_;
  int listen_fd_ = -1;
  int conn_ = -1;
  int port_ = 0;
};

TEST_F(StepSrunLossTest, TaskTrappingSigtermFinishesItsHandler) {
  pid_t stepd = StartStep(
      // term.txt appears whole (mv), so that it is never read between its creation and
      // the write.
      "trap 'sleep 0.5; echo handled > term.tmp; mv term.tmp term.txt; exit 0' TERM; "
      "echo $$ > ready; sleep 100 & wait",
      5);
  ASSERT_TRUE(WaitForFile(work() + "/ready", 10'000));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  int64_t t0 = Now();
  CloseSrun();  // srun died (SIGTERMed with the batch shell by a requeue)
  ASSERT_TRUE(WaitForFile(work() + "/term.txt", 4'000))
      << ReadFile(spool_.path() + "/step.7.0/stepd.log");
  EXPECT_EQ(ReadFile(work() + "/term.txt"), "handled\n");
  EXPECT_EQ(WaitExit(stepd, 10'000), 0);
  EXPECT_LT(Now() - t0, 4'000);  // the handler's exit ends the step, not KillWait
}

TEST_F(StepSrunLossTest, TaskIgnoringSigtermIsKilledAfterKillWait) {
  pid_t stepd = StartStep(
      "trap '' TERM; echo $$ > ready.tmp; mv ready.tmp ready; while :; do sleep 0.1; done", 2);
  ASSERT_TRUE(WaitForFile(work() + "/ready", 10'000));
  pid_t task = std::atoi(ReadFile(work() + "/ready").c_str());
  ASSERT_GT(task, 0);
  int64_t t0 = Now();
  CloseSrun();
  std::this_thread::sleep_for(std::chrono::milliseconds(1'000));
  EXPECT_TRUE(ProcessAlive(task)) << "SIGKILLed before KillWait";
  EXPECT_EQ(WaitExit(stepd, 10'000), 0);
  int64_t took = Now() - t0;
  EXPECT_GE(took, 1'800);
  EXPECT_LT(took, 5'000);
  EXPECT_FALSE(ProcessAlive(task));
}

TEST_F(StepSrunLossTest, NodeLeaseRunningOutKillsTasksWithoutKillWait) {
  std::string lease = NodeLeasePath(spool_.path());
  RealClock clock;
  ASSERT_TRUE(RenewNodeLease(lease, clock.NowMs() + 1'000).ok());
  pid_t stepd = StartStep(
      "trap '' TERM; echo $$ > ready.tmp; mv ready.tmp ready; while :; do sleep 0.1; done", 30,
      lease);
  ASSERT_TRUE(WaitForFile(work() + "/ready", 10'000));
  pid_t task = std::atoi(ReadFile(work() + "/ready").c_str());
  ASSERT_GT(task, 0);
  int64_t fence_at = *ReadNodeLease(lease);
  EXPECT_EQ(WaitExit(stepd, 10'000), 0);
  EXPECT_FALSE(ProcessAlive(task));
  int64_t late = clock.NowMs() - fence_at;
  EXPECT_GE(late, 0);
  EXPECT_LT(late, 1'000) << ReadFile(spool_.path() + "/step.7.0/stepd.log");
}

}  // namespace
}  // namespace sluice
