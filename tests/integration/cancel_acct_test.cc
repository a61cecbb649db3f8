// sacct's "CANCELLED by <uid>" names whoever cancelled the job: root cancelling another
// user's running job shows 0, the owner cancelling her own pending job shows her uid.
// Needs root (creates an unprivileged test user, as identity_test.cc).
#include <pwd.h>
#include <unistd.h>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class CancelAcct : public ClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create a test user";
    ClusterTest::SetUp();
    auto a = EnsureTestUser("sluicetest_a");
    ASSERT_TRUE(a) << "useradd failed";
    uid_ = a->uid;
    gid_ = a->gid;
  }
  RunResult AsA(std::vector<std::string> argv) {
    RunOptions o;
    o.uid = uid_;
    o.gid = gid_;
    o.cwd = "/tmp";
    return Run(std::move(argv), o);
  }
  int64_t SubmitAsA(std::vector<std::string> args) {
    std::vector<std::string> argv = {"sbatch", "--parsable", "-o", "/dev/null"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = AsA(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? std::stoll(r.out) : -1;
  }
  // Polls `sacct -j <id> -X -n -P -o State` until it prints `want`.
  std::string WaitSacctState(int64_t id, const std::string& want) {
    std::string got;
    for (int waited = 0; waited < 30'000; waited += 100) {
      got = Run({"sacct", "-j", std::to_string(id), "-X", "-n", "-P", "-o", "State"}).out;
      if (got == want) return got;
      usleep(100'000);
    }
    return got;
  }
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

TEST_F(CancelAcct, StateNamesTheCancellerNotTheOwner) {
  // Root cancels sluicetest_a's running job.
  int64_t running = SubmitAsA({"--wrap", "sleep 300"});
  ASSERT_GT(running, 0);
  ASSERT_EQ(WaitState(running, {"RUNNING"}), "RUNNING");
  RunResult c = Run({"scancel", std::to_string(running)});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(WaitSacctState(running, "CANCELLED by 0\n"), "CANCELLED by 0\n");
  // sluicetest_a cancels her own pending (held) job.
  int64_t held = SubmitAsA({"-H", "--wrap", "true"});
  ASSERT_GT(held, 0);
  RunResult own = AsA({"scancel", std::to_string(held)});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  const std::string mine = "CANCELLED by " + std::to_string(uid_) + "\n";
  EXPECT_EQ(WaitSacctState(held, mine), mine);
  // The job's owner is still sluicetest_a in both.
  RunResult owner = Run({"sacct", "-j", std::to_string(running) + "," + std::to_string(held), "-X",
                         "-n", "-P", "-o", "User"});
  EXPECT_EQ(owner.out, "sluicetest_a\nsluicetest_a\n");
}

}  // namespace
}  // namespace sluice::testing
