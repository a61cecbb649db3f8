#include "node_common/hook_runner.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/clock.h"

namespace sluice {
namespace {

class HookRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-hook-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Script(const std::string& body) {
    std::string p = dir_ + "/s" + std::to_string(n_++) + ".sh";
    std::ofstream(p) << "#!/bin/sh\n" << body;
    std::filesystem::permissions(p, std::filesystem::perms(0755));
    return p;
  }
  std::string dir_;
  int n_ = 0;
};

TEST_F(HookRunner, PassAndEnvironment) {
  HookResult r = RunHook(Script("echo \"id=$SLURM_JOB_ID\"\n"), {"SLURM_JOB_ID=7"}, 5000);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.last_line, "id=7");
}

TEST_F(HookRunner, FailureGivesLastNonEmptyLineOfStdoutOrStderr) {
  HookResult r =
      RunHook(Script("echo first\necho 'GPU 2 fell off the bus' >&2\necho\nexit 3\n"), {}, 5000);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.Reason("HealthCheck"), "GPU 2 fell off the bus");
  HookResult silent = RunHook(Script("exit 2\n"), {}, 5000);
  EXPECT_EQ(silent.Reason("HealthCheck"), "HealthCheck failed exit 2");
}

TEST_F(HookRunner, TimeoutKillsTheProgramAndItsChildren) {
  int64_t t0 = RealClock::MonotonicMs();
  HookResult r = RunHook(Script("sleep 30 &\necho $! > " + dir_ + "/child\nsleep 30\n"), {}, 300);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Reason("Prolog"), "Prolog timed out");
  EXPECT_LT(RealClock::MonotonicMs() - t0, 5000);
  std::ifstream in(dir_ + "/child");
  pid_t child = 0;
  in >> child;
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100 && ::kill(child, 0) == 0; ++i) usleep(20'000);
  EXPECT_NE(::kill(child, 0), 0);
}

TEST_F(HookRunner, MissingProgramFails) {
  HookResult r = RunHook(dir_ + "/nope", {}, 5000);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.last_line, "cannot execute " + dir_ + "/nope: No such file or directory");
  EXPECT_EQ(r.Reason("Prolog"), r.last_line);
}

TEST_F(HookRunner, BlockedSignalsAreNotInherited) {
  sigset_t mask, old;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigprocmask(SIG_BLOCK, &mask, &old);
  HookResult r = RunHook(Script("kill -TERM $$\nsleep 5\n"), {}, 5000);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  EXPECT_EQ(r.term_signal, SIGTERM);
}

}  // namespace
}  // namespace sluice
