// sacctmgr end to end: snakemake's account query, AccountingStorageEnforce at submit
// (unknown account, MaxSubmitJobs), associations and fair-share usage surviving a
// controller restart, AdminLevel=Administrator acting on another user's job.
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <csignal>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Sacctmgr : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines.push_back("AccountingStorageEnforce=associations,limits,qos");
    return o;
  }
  void Mgr(std::vector<std::string> args) {
    args.insert(args.begin(), {"sacctmgr", "-i"});
    RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // RawUsage of (account, user) from `sshare -a -P -n`; -1 when absent.
  double RawUsage(const std::string& account, const std::string& user) {
    RunResult r = Run({"sshare", "-a", "-P", "-n"});
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, '|');) f.push_back(x);
      std::string acct = f.empty() ? "" : f[0];
      acct.erase(0, acct.find_first_not_of(' '));
      if (f.size() > 4 && acct == account && f[1] == user) return std::stod(f[4]);
    }
    return -1;
  }
  RunResult WaitController(std::vector<std::string> argv) {
    RunResult r;
    for (int i = 0; i < 150; ++i) {
      r = Run(argv);
      if (r.exit_code == 0) break;
      usleep(100'000);
    }
    return r;
  }
};

TEST_F(Sacctmgr, SnakemakeQueryEnforceAndRestart) {
  // Without an association root's job is refused under enforcement.
  RunResult refused = Run({"sbatch", "--wrap", "true"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err,
            "sbatch: error: user root has no association, so no default account\n"
            "sbatch: error: Batch job submission failed: Invalid account or account/partition "
            "combination specified\n");
  RunResult add = Run({"sacctmgr", "-i", "add", "account", "physics", "Description=phys"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  EXPECT_EQ(add.out.rfind(" Adding Account(s)\n  physics\n", 0), 0u) << add.out;
  Mgr({"add", "user", "root", "account=physics"});
  RunResult dup = Run({"sacctmgr", "-i", "add", "account", "physics"});
  EXPECT_EQ(dup.exit_code, 1);
  // snakemake 7.21's exact query.
  RunResult q = Run({"sacctmgr", "-n", "-s", "list", "user", "root", "format=account%20"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "             physics \n");
  // Unknown account under enforcement.
  RunResult bad = Run({"sbatch", "-A", "nosuch", "--wrap", "true"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err,
            "sbatch: error: invalid account or partition for user root, account 'nosuch', and "
            "partition 'gpu'\n"
            "sbatch: error: Batch job submission failed: Invalid account or account/partition "
            "combination specified\n");
  // MaxSubmitJobs.
  Mgr({"modify", "user", "root", "set", "maxsubmitjobs=1"});
  int64_t first = Submit({"--wrap", "sleep 2"});
  RunResult over = Run({"sbatch", "--wrap", "true"});
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_EQ(over.err,
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job "
            "submit limit, user's size and/or time limits)\n");
  EXPECT_EQ(WaitDone(first), "COMPLETED");
  // Usage accrued by the job is persisted and survives a restart.
  double usage = -1;
  for (int i = 0; i < 200 && usage <= 0; ++i) {
    usage = RawUsage("physics", "root");
    if (usage <= 0) usleep(100'000);
  }
  ASSERT_GT(usage, 0);
  usleep(1'200'000);  // past the usage save throttle; the next pass saves it
  Mgr({"modify", "user", "root", "set", "maxsubmitjobs=-1"});
  EXPECT_EQ(WaitDone(Submit({"--wrap", "true"})), "COMPLETED");
  cluster_->KillController(SIGKILL);
  ASSERT_TRUE(cluster_->StartController().ok());
  RunResult again =
      WaitController({"sacctmgr", "-n", "-s", "list", "user", "root", "format=account%20"});
  EXPECT_EQ(again.out, "             physics \n");
  EXPECT_GE(RawUsage("physics", "root"), usage * 0.99);
}

using User = TestUser;

TEST_F(Sacctmgr, AdministratorMayCancelAnotherUsersJob) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create test users";
  auto a = EnsureTestUser("sluicetest_a");
  auto b = EnsureTestUser("sluicetest_b");
  ASSERT_TRUE(a && b);
  Mgr({"add", "account", "lab"});
  Mgr({"add", "user", "sluicetest_a,sluicetest_b", "account=lab"});
  auto as = [&](const User& u, std::vector<std::string> argv) {
    RunOptions o;
    o.uid = u.uid;
    o.gid = u.gid;
    o.cwd = "/tmp";
    return Run(std::move(argv), o);
  };
  RunResult sub = as(*a, {"sbatch", "--parsable", "-o", "/dev/null", "--wrap", "sleep 60"});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  int64_t id = std::stoll(sub.out);
  RunResult denied = as(*b, {"scancel", std::to_string(id)});
  EXPECT_NE(denied.exit_code, 0);
  RunResult not_admin = as(*b, {"sacctmgr", "-i", "add", "account", "x"});
  EXPECT_EQ(not_admin.exit_code, 1);
  EXPECT_EQ(not_admin.err,
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n");
  Mgr({"modify", "user", "sluicetest_b", "set", "adminlevel=Administrator"});
  RunResult show = Run({"sacctmgr", "-P", "-n", "show", "user", "sluicetest_b"});
  EXPECT_EQ(show.out, "sluicetest_b|lab|Administrator\n");
  RunResult ok = as(*b, {"scancel", std::to_string(id)});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(WaitDone(id), "CANCELLED");
}

}  // namespace
}  // namespace sluice::testing
