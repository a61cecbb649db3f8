// StepdLauncher with and without a prestarted stepd. The "stepd" here is a shell script
// that records what it was given: its command line, or (started with --wait, as `cat`
// under the same pid) the message it reads from fd 3.
#include "noded/stepd_launcher.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "node_common/test_util.h"

namespace sluice {
namespace {

class StepdLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stepd_ = tmp_.path() + "/fake-stepd";
    std::ofstream(stepd_) << "#!/bin/sh\n"
                             "dir=$(dirname \"$0\")\n"
                             "if [ \"$1\" = --wait ]; then exec cat <&3 > \"$dir/got.$$\"; fi\n"
                             "printf '%s|' \"$@\" > \"$dir/argv.$$\"\n";
    ::chmod(stepd_.c_str(), 0755);
  }

  // The prestarted stepd's pid once there is one (0 after 5 s).
  static pid_t AwaitWaiting(StepdLauncher& l, pid_t other_than = 0) {
    for (int i = 0; i < 500; ++i) {
      pid_t p = l.WaitingPid();
      if (p > 0 && p != other_than) return p;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  }

  static std::string State(pid_t pid) {  // "Z" for a zombie
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string id, comm, state;
    stat >> id >> comm >> state;
    return state;
  }

  // What stepd `pid` recorded (`kind` "argv" or "got"), once there is something.
  std::string Got(pid_t pid, const std::string& kind) {
    std::string path = tmp_.path() + "/" + kind + "." + std::to_string(pid);
    for (int i = 0; i < 500; ++i) {
      if (::access(path.c_str(), F_OK) == 0 && !testing::ReadFile(path).empty())
        return testing::ReadFile(path);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "<nothing>";
  }

  testing::TempDir tmp_;
  std::string stepd_;
};

TEST_F(StepdLauncherTest, WithoutPrestartEachLaunchIsSpawnedWithItsArguments) {
  StepdLauncher l(stepd_);
  auto pid = l.SpawnStep("/spool/step.1.0");
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  EXPECT_EQ(Got(*pid, "argv"), "--step|/spool/step.1.0|");
  EXPECT_EQ(l.WaitingPid(), 0);
}

TEST_F(StepdLauncherTest, LaunchesGoToThePrestartedStepdAndANewOneIsStarted) {
  StepdLauncher l(stepd_, /*prestart=*/true);
  pid_t first = AwaitWaiting(l);
  ASSERT_GT(first, 0);
  auto step = l.SpawnStep("/spool/step.1.0");
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_EQ(*step, first);
  EXPECT_EQ(Got(first, "got"), std::string("--step\0/spool/step.1.0", 22));
  EXPECT_TRUE(l.IsChild(first));

  pid_t second = AwaitWaiting(l, first);
  ASSERT_GT(second, 0);
  auto job = l.Spawn("/spool/job.2");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(*job, second);
  EXPECT_EQ(Got(second, "got"), "/spool/job.2");
}

TEST_F(StepdLauncherTest, ADeadPrestartedStepdIsNotUsedAndIsReplaced) {
  StepdLauncher l(stepd_, /*prestart=*/true);
  pid_t dead = AwaitWaiting(l);
  ASSERT_GT(dead, 0);
  ::kill(dead, SIGKILL);
  // Dead but not reaped yet (a zombie): a launch now finds its socket closed and spawns.
  for (int i = 0; i < 200 && State(dead) != "Z"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(State(dead), "Z");
  auto step = l.SpawnStep("/spool/step.3.1");
  ASSERT_TRUE(step.ok());
  EXPECT_NE(*step, dead);
  EXPECT_EQ(Got(*step, "argv"), "--step|/spool/step.3.1|");

  l.Reap();  // collects the dead one; a new one is prestarted
  EXPECT_FALSE(l.IsChild(dead));
  pid_t next = AwaitWaiting(l, dead);
  ASSERT_GT(next, 0);
  auto again = l.SpawnStep("/spool/step.3.2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, next);
}

TEST_F(StepdLauncherTest, ThePrestartedStepdExitsWhenTheLauncherGoes) {
  pid_t waiting = 0;
  {
    StepdLauncher l(stepd_, /*prestart=*/true);
    waiting = AwaitWaiting(l);
    ASSERT_GT(waiting, 0);
  }
  int status = -1;
  pid_t r = 0;
  for (int i = 0; i < 500 && r == 0; ++i) {
    r = ::waitpid(waiting, &status, WNOHANG);
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(r, waiting) << "the prestarted stepd did not exit";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(testing::ReadFile(tmp_.path() + "/got." + std::to_string(waiting)),
            "");  // given nothing
}

}  // namespace
}  // namespace sluice
