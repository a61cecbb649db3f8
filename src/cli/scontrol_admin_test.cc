// scontrol token and setdebug against a fake API: Slurm's output and errors, and what is
// sent to the controller.
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "cli/scontrol.h"

namespace sluice {
namespace {

class ScontrolAdminTest : public ::testing::Test {
 protected:
  int Run(std::vector<std::string> args) { return RunScontrol(args, t.env); }
  TestCli t;
};

TEST_F(ScontrolAdminTest, TokenPrintsSlurmJwtAndSendsItsOptions) {
  EXPECT_EQ(Run({"token"}), 0);
  EXPECT_EQ(t.out.str(), "SLURM_JWT=eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJhbGljZSJ9.c2ln\n");
  ASSERT_EQ(t.api.token_requests.size(), 1u);
  EXPECT_EQ(t.api.token_requests[0].lifespan_s(), 0);
  EXPECT_EQ(t.api.token_requests[0].username(), "");
  EXPECT_EQ(Run({"token", "lifespan=600", "Username=bob"}), 0);
  ASSERT_EQ(t.api.token_requests.size(), 2u);
  EXPECT_EQ(t.api.token_requests[1].lifespan_s(), 600);
  EXPECT_EQ(t.api.token_requests[1].username(), "bob");
}

TEST_F(ScontrolAdminTest, TokenErrorsAsSlurm) {
  EXPECT_EQ(Run({"token", "color=blue"}), 1);
  EXPECT_EQ(t.err.str(), "Invalid option: `color=blue`\n");
  t.err.str("");
  EXPECT_EQ(Run({"token", "lifespan=soon"}), 1);
  EXPECT_EQ(t.err.str(), "Invalid option: `lifespan=soon`\n");
  EXPECT_TRUE(t.api.token_requests.empty());
  t.err.str("");
  t.api.fail = PermissionDenied("Access/permission denied");
  EXPECT_EQ(Run({"token", "username=root"}), 1);
  EXPECT_EQ(t.err.str(), "scontrol: error: Access/permission denied\nError fetching token\n");
  EXPECT_EQ(t.out.str(), "");
}

TEST_F(ScontrolAdminTest, SetdebugSendsTheLevelAndReportsRefusals) {
  EXPECT_EQ(Run({"setdebug", "debug2"}), 0);
  EXPECT_EQ(t.out.str() + t.err.str(), "");
  ASSERT_EQ(t.api.debug_requests.size(), 1u);
  EXPECT_EQ(t.api.debug_requests[0].level(), "debug2");
  EXPECT_EQ(Run({"setdebug"}), 1);
  EXPECT_EQ(t.err.str(), "too few arguments for keyword:setdebug\n");
  t.err.str("");
  EXPECT_EQ(Run({"setdebug", "info", "debug"}), 1);
  EXPECT_EQ(t.err.str(), "too many arguments for keyword:setdebug\n");
  t.err.str("");
  t.api.fail = InvalidArgument("invalid debug level: loud");
  EXPECT_EQ(Run({"setdebug", "loud"}), 1);
  EXPECT_EQ(t.err.str(), "slurm_set_debug_level error: invalid debug level: loud\n");
}

}  // namespace
}  // namespace sluice
