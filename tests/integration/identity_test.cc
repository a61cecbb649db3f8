// Jobs run as the submitting user (uid, gid, supplementary groups, umask); one user
// cannot cancel, hold, update, requeue or signal another user's job, nor read its
// output; PrivateData=jobs hides other users' jobs. Needs root (creates two
// unprivileged users for the test).
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using User = TestUser;

class Identity : public ClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ClusterTest::SetUp();
    auto a = EnsureTestUser("sluicetest_a");
    auto b = EnsureTestUser("sluicetest_b");
    ASSERT_TRUE(a && b) << "useradd failed";
    a_ = *a;
    b_ = *b;
    a_dir_ = work_dir() + "/a";
    std::filesystem::create_directories(a_dir_);
    ASSERT_EQ(chown(a_dir_.c_str(), a_.uid, a_.gid), 0);
    chmod(a_dir_.c_str(), 0700);
  }
  // Runs `shell` with /bin/sh -c as `u`; the cluster's commands are on PATH.
  RunResult ShellAs(const User& u, const std::string& shell, const std::string& cwd) {
    RunOptions o;
    o.uid = u.uid;
    o.gid = u.gid;
    o.cwd = cwd;
    for (const auto& e : cluster_->Env()) o.extra_env.push_back(e);
    std::string bin = cluster_->BinPath("sbatch");
    o.extra_env.push_back("PATH=" + bin.substr(0, bin.rfind('/')) + ":/usr/bin:/bin");
    return RunCommand({"/bin/sh", "-c", shell}, o);
  }
  int64_t SubmitAs(const User& u, const std::string& wrap, const std::string& cwd) {
    auto r = As(u, {"sbatch", "--parsable", "-o", "o-%j.out", "--wrap", wrap}, cwd);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? std::stoll(r.out) : -1;
  }
  RunResult As(const User& u, std::vector<std::string> argv, const std::string& cwd) {
    RunOptions o;
    o.uid = u.uid;
    o.gid = u.gid;
    o.cwd = cwd;
    return Run(std::move(argv), o);
  }
  User a_{}, b_{};
  std::string a_dir_;
};

TEST_F(Identity, JobRunsAsSubmitterAndOthersCannotCancelIt) {
  auto sub = As(a_, {"sbatch", "--parsable", "-o", "a-%j.out", "--wrap", "id -u; id -g; sleep 30"},
                a_dir_);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  int64_t id = std::stoll(sub.out);
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  auto denied = As(b_, {"scancel", std::to_string(id)}, "/tmp");
  EXPECT_EQ(denied.exit_code, 210);
  EXPECT_EQ(denied.err, "scancel: error: Kill job error on job id " + std::to_string(id) +
                            ": Access/permission denied\n");
  EXPECT_EQ(State(id), "RUNNING");
  auto q = Run({"squeue", "-h", "-j", std::to_string(id), "-o", "%u"});
  EXPECT_EQ(q.out, "sluicetest_a\n");
  auto own = As(a_, {"scancel", std::to_string(id)}, a_dir_);
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(WaitDone(id), "CANCELLED");
  std::string out_path = a_dir_ + "/a-" + std::to_string(id) + ".out";
  EXPECT_EQ(ReadFile(out_path), std::to_string(a_.uid) + "\n" + std::to_string(a_.gid) + "\n");
  struct stat st {};
  ASSERT_EQ(stat(out_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, a_.uid) << "output file must be created as the user";
}

TEST_F(Identity, UsersCannotDrainNodes) {
  auto r = As(b_, {"scontrol", "update", "NodeName=node01", "State=DRAIN", "Reason=x"}, "/tmp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Access/permission denied"), std::string::npos) << r.err;
}

TEST_F(Identity, OthersCannotHoldUpdateRequeueOrSignalAJob) {
  int64_t id = SubmitAs(a_, "sleep 60", a_dir_);
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  const std::string sid = std::to_string(id);
  const std::string denied = "Access/permission denied";
  auto hold = As(b_, {"scontrol", "hold", sid}, "/tmp");
  EXPECT_EQ(hold.exit_code, 1);
  EXPECT_EQ(hold.err, "slurm_update error: " + denied + "\n");
  auto update = As(b_, {"scontrol", "update", "JobId=" + sid, "TimeLimit=5"}, "/tmp");
  EXPECT_EQ(update.exit_code, 1);
  EXPECT_EQ(update.err, "slurm_update error: " + denied + "\n");
  auto rename = As(b_, {"scontrol", "update", "JobId=" + sid, "Name=mine"}, "/tmp");
  EXPECT_EQ(rename.exit_code, 1);
  EXPECT_EQ(rename.err, "slurm_update error: " + denied + "\n");
  auto requeue = As(b_, {"scontrol", "requeue", sid}, "/tmp");
  EXPECT_EQ(requeue.exit_code, 1);
  EXPECT_EQ(requeue.err, "slurm_requeue error: " + denied + "\n");
  auto signal = As(b_, {"scancel", "-s", "USR1", sid}, "/tmp");
  EXPECT_EQ(signal.exit_code, 210);
  EXPECT_EQ(signal.err, "scancel: error: Kill job error on job id " + sid + ": " + denied + "\n");
  // Nothing changed: still running under A's name with the original time limit.
  auto q = Run({"squeue", "-h", "-j", sid, "-o", "%T %u %j %l"});
  EXPECT_EQ(q.out, "RUNNING sluicetest_a wrap UNLIMITED\n");
  // A may (and root may) act on it.
  EXPECT_EQ(As(a_, {"scontrol", "update", "JobId=" + sid, "TimeLimit=5"}, a_dir_).exit_code, 0);
  EXPECT_EQ(Run({"scancel", sid}).exit_code, 0);
  EXPECT_EQ(WaitDone(id), "CANCELLED");
}

TEST_F(Identity, OutputFollowsTheUsersUmaskAndOthersCannotReadIt) {
  // The shared work dir is world-readable: only the file's mode protects it.
  auto sub = ShellAs(a_, "umask 077; exec sbatch --parsable -o private-%j.out --wrap 'echo secret'",
                     work_dir());
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  int64_t id = std::stoll(sub.out);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string path = work_dir() + "/private-" + std::to_string(id) + ".out";
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, a_.uid);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RunOptions as_b;
  as_b.uid = b_.uid;
  as_b.gid = b_.gid;
  auto peek = RunCommand({"/bin/cat", path}, as_b);
  EXPECT_NE(peek.exit_code, 0);
  EXPECT_NE(peek.err.find("Permission denied"), std::string::npos) << peek.err;
  RunOptions as_a;
  as_a.uid = a_.uid;
  as_a.gid = a_.gid;
  EXPECT_EQ(RunCommand({"/bin/cat", path}, as_a).out, "secret\n");
}

TEST_F(Identity, JobHasTheUsersSupplementaryGroups) {
  if (getgrnam("sluicetest_g") == nullptr) RunCommand({"groupadd", "sluicetest_g"});
  RunCommand({"usermod", "-aG", "sluicetest_g", "sluicetest_a"});
  const group* g = getgrnam("sluicetest_g");
  ASSERT_NE(g, nullptr) << "groupadd failed";
  int64_t id = SubmitAs(a_, "id -u; id -g; id -G", a_dir_);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string want_groups = RunCommand({"id", "-G", "sluicetest_a"}).out;
  EXPECT_NE(want_groups.find(std::to_string(g->gr_gid)), std::string::npos) << want_groups;
  EXPECT_EQ(ReadFile(a_dir_ + "/o-" + std::to_string(id) + ".out"),
            std::to_string(a_.uid) + "\n" + std::to_string(a_.gid) + "\n" + want_groups);
}

class IdentityPrivateData : public Identity {
 protected:
  LocalClusterOptions Options() override {
    auto o = Identity::Options();
    o.extra_config_lines.push_back("PrivateData=jobs,usage,users");
    return o;
  }
};

TEST_F(IdentityPrivateData, UsersSeeOnlyTheirOwnJobs) {
  int64_t id = SubmitAs(a_, "sleep 60", a_dir_);
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  const std::string sid = std::to_string(id);
  EXPECT_EQ(As(a_, {"squeue", "-h", "-o", "%i"}, a_dir_).out, sid + "\n");
  EXPECT_EQ(Run({"squeue", "-h", "-o", "%i"}).out, sid + "\n");  // root sees all
  auto b_all = As(b_, {"squeue", "-h", "-o", "%i"}, "/tmp");
  EXPECT_EQ(b_all.exit_code, 0) << b_all.err;
  EXPECT_EQ(b_all.out, "");
  auto b_one = As(b_, {"scontrol", "show", "job", sid}, "/tmp");
  EXPECT_EQ(b_one.exit_code, 1);
  EXPECT_EQ(b_one.err, "slurm_load_jobs error: Invalid job id specified\n");
  // sacct too: B asking for everyone, or for A's job by id, gets nothing; A and root see it.
  auto b_acct = As(b_, {"sacct", "-a", "-n", "-X", "-o", "JobID", "-j", sid}, "/tmp");
  EXPECT_EQ(b_acct.exit_code, 0) << b_acct.err;
  EXPECT_EQ(b_acct.out, "");
  auto a_acct = As(a_, {"sacct", "-n", "-X", "-P", "-o", "JobID", "-j", sid}, a_dir_);
  EXPECT_EQ(a_acct.out, sid + "\n") << a_acct.err;
  EXPECT_EQ(Run({"sacct", "-a", "-n", "-X", "-P", "-o", "JobID", "-j", sid}).out, sid + "\n");
  EXPECT_EQ(Run({"scancel", sid}).exit_code, 0);
}

// PrivateData=users: sacctmgr shows B only B's own user and associations; root sees all.
TEST_F(IdentityPrivateData, UsersSeeOnlyTheirOwnAssociations) {
  ASSERT_EQ(Run({"sacctmgr", "-i", "add", "account", "ml"}).exit_code, 0);
  auto add = Run({"sacctmgr", "-i", "add", "user", "sluicetest_a,sluicetest_b", "account=ml"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  const std::vector<std::string> show = {"sacctmgr", "-n",    "-P",
                                         "show",     "assoc", "format=user,account"};
  auto b = As(b_, show, "/tmp");
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.out.find("sluicetest_a"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("sluicetest_b|ml"), std::string::npos) << b.out;
  auto root = Run(show);
  EXPECT_NE(root.out.find("sluicetest_a|ml"), std::string::npos) << root.out;
  EXPECT_NE(root.out.find("sluicetest_b|ml"), std::string::npos) << root.out;
}

}  // namespace
}  // namespace sluice::testing
