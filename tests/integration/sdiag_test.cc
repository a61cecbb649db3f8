// sdiag against a real controller: the counters follow the jobs, the RPC statistics come
// from the server's interceptor (every method, the callback ones too), reset is for root.
#include <nlohmann/json.hpp>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using Sdiag = ClusterTest;

TEST_F(Sdiag, CountsJobsPassesAndRpcsAndResets) {
  const int64_t a = Submit({"--wrap", "true"});
  const int64_t b = Submit({"--wrap", "exit 3"});
  const int64_t c = Submit({"--hold", "--wrap", "true"});
  EXPECT_EQ(WaitDone(a), "COMPLETED");
  EXPECT_EQ(WaitDone(b), "FAILED");
  ASSERT_EQ(Run({"scancel", std::to_string(c)}).exit_code, 0);
  EXPECT_EQ(WaitDone(c), "CANCELLED");
  RunResult step = Run({"srun", "-N2", "true"});
  ASSERT_EQ(step.exit_code, 0) << step.err;

  RunResult r = Run({"sdiag"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"Jobs submitted: 4\n", "Jobs started:   3\n", "Jobs completed: 2\n",
                           "Jobs canceled:  1\n", "Jobs failed:    1\n", "Jobs pending:   0\n"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  EXPECT_EQ(r.out.find("\tTotal cycles: 0\n"), std::string::npos) << r.out;
  // The interceptor saw the unary calls and the callback ones (srun's LaunchStep).
  for (const char* method : {"\tSubmitJob ", "\tGetJobs ", "\tCancelJobs ", "\tLaunchStep ",
                             "\tRegisterNode ", "\tJobEnded "})
    EXPECT_NE(r.out.find(method), std::string::npos) << method << "\n" << r.out;
  EXPECT_NE(r.out.find("\tSubmitJob                count:4 "), std::string::npos) << r.out;

  RunResult j = Run({"sdiag", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["statistics"]["jobs_submitted"], 4);

  ASSERT_EQ(Run({"sdiag", "-r"}).exit_code, 0);
  r = Run({"sdiag"});
  EXPECT_NE(r.out.find("Jobs submitted: 0\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\tSubmitJob "), std::string::npos) << r.out;
}

TEST_F(Sdiag, ResetIsForAdminsOnly) {
  std::optional<TestUser> user = EnsureTestUser("sluicetest_a");
  if (!user) GTEST_SKIP() << "needs root to create a test user";
  RunOptions o;
  o.uid = user->uid;
  o.gid = user->gid;
  RunResult r = Run({"sdiag", "-r"}, o);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sdiag: error: Access/permission denied"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"sdiag"}, o).exit_code, 0);  // reading is for everyone
}

}  // namespace
}  // namespace sluice::testing
