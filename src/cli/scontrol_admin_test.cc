// scontrol token, setdebug, takeover and ping (several controllers) against a fake API: Slurm's output and errors, and what is
// sent to the controller.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

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

TEST_F(ScontrolAdminTest, TakeoverAsksTheLeaderAndReportsRefusals) {
  EXPECT_EQ(Run({"takeover"}), 0);
  EXPECT_EQ(t.out.str() + t.err.str(), "");
  EXPECT_EQ(t.api.takeovers, 1);
  EXPECT_EQ(Run({"takeover", "ctl2"}), 1);
  EXPECT_EQ(t.err.str(), "too many arguments for keyword:takeover\n");
  EXPECT_EQ(t.api.takeovers, 1);
  t.err.str("");
  t.api.fail = FailedPrecondition("no backup controller to take over");
  EXPECT_EQ(Run({"takeover"}), 1);
  EXPECT_EQ(t.err.str(), "slurm_takeover error: no backup controller to take over\n");
}

TEST_F(ScontrolAdminTest, PingReportsEachControllerOfSeveral) {
  char tmpl[] = "/tmp/sluice-ping-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string conf = std::string(tmpl) + "/sluice.conf";
  {
    std::ofstream f(conf);
    f << "ClusterName=c\nSlurmctldHost=ctl1(10.0.0.1)\nSlurmctldHost=ctl2(10.0.0.2)\n";
  }
  t.env.environ["SLUICE_CONF"] = conf;
  t.api.ping_each = {true, true};
  EXPECT_EQ(Run({"ping"}), 0);
  EXPECT_EQ(t.out.str(), "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is UP\n");
  t.out.str("");
  t.api.ping_each = {false, true};  // the primary is gone, its backup leads
  EXPECT_EQ(Run({"ping"}), 1);
  EXPECT_EQ(t.out.str(), "Slurmctld(primary) at ctl1 is DOWN\nSlurmctld(backup) at ctl2 is UP\n");
  {
    std::ofstream f(conf, std::ios::app);
    f << "SlurmctldHost=ctl3(10.0.0.3)\n";
  }
  t.out.str("");
  t.api.ping_each = {true, true, false};
  EXPECT_EQ(Run({"ping"}), 1);
  EXPECT_EQ(t.out.str(),
            "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup1) at ctl2 is UP\n"
            "Slurmctld(backup2) at ctl3 is DOWN\n");
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace sluice
