// `sluice doctor` on a real cluster: every check passes on a healthy one; a cluster key
// others can read, and a controller that does not answer, are named with a FAIL.
#include <signal.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "cluster_fixture.h"
#include "common/version.h"
#include "rpc/protocol.h"

namespace sluice::testing {
namespace {

class Doctor : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 2;
    return o;
  }
  RunResult Check() { return Run({"sluice", "doctor", "-f", cluster_->conf_path()}); }
  std::string Key() const { return cluster_->state_dir() + "/state/cluster.key"; }
};

TEST_F(Doctor, AHealthyClusterPassesEveryCheck) {
  // The clocks' check needs a heartbeat after registration.
  RunResult r = Check();
  for (int i = 0; i < 60 && r.out.find("no agent has sent") != std::string::npos; ++i) {
    usleep(250'000);
    r = Check();
  }
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(SortedLines(r.out, "[WARN]"), std::vector<std::string>{}) << r.out;
  EXPECT_NE(r.out.find("[ OK ] config      " + cluster_->conf_path() + ": 2 nodes, 1 partitions\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[ OK ] key         " + Key() + " (mode 0600)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[ OK ] controllers 1 of 1 answer\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[ OK ] nodes       2 of 2 agents respond\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fmt::format("[ OK ] versions    every agent runs {} (protocol {})",
                                   SluiceVersion(), kProtocolVersion)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[ OK ] clocks      "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms apart at most (node0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[ OK ] completing  no job stuck COMPLETING\n"), std::string::npos) << r.out;
}

TEST_F(Doctor, AReadableKeyAndASilentControllerFail) {
  ASSERT_EQ(::chmod(Key().c_str(), 0644), 0);
  cluster_->KillController(SIGTERM);
  RunResult r = Check();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("[FAIL] key         " + Key() +
                       " has mode 0644: others can read it and forge credentials (chmod 600)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[FAIL] controllers "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[ OK ] nodes"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sluice::testing
