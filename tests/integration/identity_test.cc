// Jobs run as the submitting user; one user cannot cancel another user's job. Needs root
// (creates two unprivileged users for the test).
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

struct User {
  uid_t uid;
  gid_t gid;
};

std::optional<User> EnsureUser(const std::string& name) {
  if (getpwnam(name.c_str()) == nullptr) {
    RunCommand({"useradd", "--no-create-home", "--shell", "/bin/bash", name});
  }
  const passwd* pw = getpwnam(name.c_str());
  if (pw == nullptr) return std::nullopt;
  return User{pw->pw_uid, pw->pw_gid};
}

class Identity : public ClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create test users";
    ClusterTest::SetUp();
    auto a = EnsureUser("sluicetest_a");
    auto b = EnsureUser("sluicetest_b");
    ASSERT_TRUE(a && b) << "useradd failed";
    a_ = *a;
    b_ = *b;
    a_dir_ = work_dir() + "/a";
    std::filesystem::create_directories(a_dir_);
    ASSERT_EQ(chown(a_dir_.c_str(), a_.uid, a_.gid), 0);
    chmod(a_dir_.c_str(), 0700);
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
  auto sub = As(a_, {"sbatch", "--parsable", "-o", "a-%j.out", "--wrap", "id -u; id -g; sleep 30"}, a_dir_);
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

}  // namespace
}  // namespace sluice::testing
