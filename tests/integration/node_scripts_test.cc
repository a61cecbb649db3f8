// Prolog / Epilog on every node of a multi-node job: the batch host runs them around the
// batch script, each other node runs the Prolog before the job's first step there and the
// Epilog when the job ends (Slurm's behaviour without PrologFlags=Alloc). A prolog that
// fails on a non-batch node drains that node ("Prolog error") and requeues the job, which
// then completes elsewhere.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {
namespace {

class NodeScripts : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    const std::string d = root_dir_;
    std::string line =
        "$SLURM_JOB_ID $SLURM_RESTART_COUNT $SLURM_JOB_NODELIST $SLURMD_NODENAME "
        "$SLURM_SCRIPT_CONTEXT >> " +
        d + "/scripts.log\n";
    WriteShellScript(d + "/prolog.sh", "echo prolog " + line + "[ -e " + d +
                                           "/badprolog.$SLURMD_NODENAME ] && exit 3\nexit 0\n");
    WriteShellScript(d + "/epilog.sh", "echo epilog " + line + "exit 0\n");
    o.extra_config_lines = {"Prolog=" + d + "/prolog.sh", "Epilog=" + d + "/epilog.sh"};
    return o;
  }

  bool WaitLogHas(const std::string& text, int timeout_ms = 20'000) {
    int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
    while (RealClock::MonotonicMs() < deadline) {
      if (ReadFile(root_dir_ + "/scripts.log").find(text) != std::string::npos) return true;
      usleep(100'000);
    }
    return false;
  }
  std::string NodeStateReason(const std::string& node) {
    std::string s = Run({"sinfo", "-h", "-N", "-n", node, "-o", "%t|%E"}).out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
};

TEST_F(NodeScripts, PrologAndEpilogRunOnEveryNodeOfTheJob) {
  int64_t job =
      Submit({"-N2", "-o", "out.txt", "--wrap", cluster_->BinPath("srun") + " -N2 hostname"});
  ASSERT_EQ(WaitDone(job), "COMPLETED") << ReadFile("out.txt");
  std::string id = std::to_string(job);
  for (std::string node : {"node01", "node02"}) {
    EXPECT_TRUE(WaitLogHas("prolog " + id + " 0 node[01-02] " + node + " prolog_slurmd\n"))
        << ReadFile(root_dir_ + "/scripts.log");
    EXPECT_TRUE(WaitLogHas("epilog " + id + " 0 node[01-02] " + node + " epilog_slurmd\n"))
        << ReadFile(root_dir_ + "/scripts.log");
  }
  // Once per node and job, however many steps reach the node.
  int64_t two =
      Submit({"-N2", "-o", "/dev/null", "--wrap",
              cluster_->BinPath("srun") + " -N2 true; " + cluster_->BinPath("srun") + " -N2 true"});
  ASSERT_EQ(WaitDone(two), "COMPLETED");
  ASSERT_TRUE(WaitLogHas("epilog " + std::to_string(two) + " 0 node[01-02] node02"));
  std::string log = ReadFile(root_dir_ + "/scripts.log");
  std::string p2 = "prolog " + std::to_string(two) + " 0 node[01-02] node02";
  EXPECT_EQ(log.find(p2), log.rfind(p2)) << log;
}

TEST_F(NodeScripts, FailingPrologOnASecondNodeDrainsItAndRequeuesTheJob) {
  std::ofstream(root_dir_ + "/badprolog.node02") << "";
  int64_t job = Submit({"-N2", "-o", "out.txt", "--wrap",
                        "echo restart=${SLURM_RESTART_COUNT:-0} on $SLURM_JOB_NODELIST; " +
                            cluster_->BinPath("srun") + " -N2 true"});
  ASSERT_EQ(WaitDone(job), "COMPLETED") << ReadFile("out.txt");
  EXPECT_EQ(NodeStateReason("node02"), "drain|Prolog error");
  std::string out = ReadFile("out.txt");
  EXPECT_NE(out.find("restart=0 on node[01-02]\n"), std::string::npos) << out;
  EXPECT_NE(out.find("restart=1 on node[01,03]\n"), std::string::npos) << out;
  auto show = Run({"scontrol", "show", "job", std::to_string(job)});
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  std::string log = ReadFile(root_dir_ + "/scripts.log");
  EXPECT_NE(log.find("prolog " + std::to_string(job) + " 1 node[01,03] node03 prolog_slurmd"),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace sluice::testing
