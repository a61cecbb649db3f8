// Rolling upgrades: agents one protocol version older and newer than the controller run
// jobs beside a current one (each alone, and one job across all three with srun); an
// agent restarted onto the current binary keeps the job it runs; an agent two versions
// ahead is refused with a message naming both versions. The older and newer agents are
// the sluiced-proto-* builds (src/noded/CMakeLists.txt), which speak a neighbour's version.
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cluster_fixture.h"
#include "common/version.h"
#include "rpc/protocol.h"

namespace sluice::testing {
namespace {

class RollingUpgrade : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 3;
    o.agent_bin_of = {{1, "sluiced-proto-prev"}, {2, "sluiced-proto-next"}};
    return o;
  }
  static std::string Release(int protocol) {
    return fmt::format("{} (protocol {})", SluiceVersion(), protocol);
  }
};

TEST_F(RollingUpgrade, AgentsOneVersionApartRunJobsAndAnUpgradedOneKeepsItsJob) {
  const std::string doctor = Run({"sluice", "doctor"}).out;
  EXPECT_NE(doctor.find("run " + Release(kProtocolVersion - 1)), std::string::npos) << doctor;
  EXPECT_NE(doctor.find("run " + Release(kProtocolVersion + 1)), std::string::npos) << doctor;
  for (const char* node : {"node01", "node02", "node03"})
    EXPECT_EQ(WaitDone(Submit({"-o", "/dev/null", "-w", node, "--wrap", "true"})), "COMPLETED")
        << node;
  const int64_t wide =
      Submit({"-N3", "-o", "wide.out", "--wrap", cluster_->BinPath("srun") + " -N3 hostname"});
  ASSERT_EQ(WaitDone(wide), "COMPLETED") << ReadFile("wide.out");
  EXPECT_EQ(ReadLines(work_dir() + "/wide.out").size(), 3u) << ReadFile("wide.out");

  // node02 onto the current binary while its job runs: the job goes on, once.
  const int64_t job = Submit({"-o", "/dev/null", "-w", "node02", "--wrap",
                              "echo run >> " + work_dir() + "/runs.txt; sleep 4"});
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  cluster_->KillAgent(1, SIGTERM);
  ASSERT_TRUE(cluster_->StartAgent(1, "sluiced").ok());
  EXPECT_EQ(WaitDone(job), "COMPLETED");
  EXPECT_EQ(ReadLines(work_dir() + "/runs.txt").size(), 1u);
  EXPECT_NE(Run({"scontrol", "show", "job", std::to_string(job)}).out.find("Restarts=0"),
            std::string::npos);
  const std::string after = Run({"sluice", "doctor"}).out;
  EXPECT_EQ(after.find(Release(kProtocolVersion - 1)), std::string::npos) << after;

  // Two versions ahead: refused, saying why.
  cluster_->KillAgent(2, SIGTERM);
  ASSERT_TRUE(cluster_->StartAgent(2, "sluiced-proto-skip").ok());
  const std::string want = fmt::format(
      "node node03 speaks protocol {}; this controller speaks {} and serves {} to {}: upgrade "
      "one version at a time",
      kProtocolVersion + 2, kProtocolVersion, kProtocolVersion - 1, kProtocolVersion + 1);
  const std::string log = cluster_->state_dir() + "/log/node03.log";
  for (int i = 0; i < 100 && ReadFile(log).find(want) == std::string::npos; ++i) usleep(100'000);
  EXPECT_NE(ReadFile(log).find(want), std::string::npos) << ReadFile(log);
}

}  // namespace
}  // namespace sluice::testing
