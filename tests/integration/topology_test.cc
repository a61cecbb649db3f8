// Topology-aware placement on a real cluster: multi-node jobs under one leaf switch
// (topology.conf), --switches, GPU sets inside one NVLink island (gres.conf Links=), and
// packing of small jobs onto partly used nodes.
#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

// GPUs {0-3} and {4-7} are two NVLink islands (2 links inside, none across).
std::string IslandGresConf() {
  std::string text;
  for (int g = 0; g < 8; ++g) {
    std::string links;
    for (int j = 0; j < 8; ++j) {
      if (j) links += ",";
      links += j == g ? "-1" : (j / 4 == g / 4 ? "2" : "0");
    }
    text += "NodeName=node[01-04] Name=gpu Count=1 Links=" + links + "\n";
  }
  return text;
}

class Topology : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines = {"TopologyPlugin=topology/tree"};
    // Interleaved leaves, so first fit in node order would always cross them.
    o.extra_files["topology.conf"] =
        "SwitchName=leafA Nodes=node[01,03]\nSwitchName=leafB Nodes=node[02,04]\n"
        "SwitchName=spine Switches=leafA,leafB\n";
    o.extra_files["gres.conf"] = IslandGresConf();
    return o;
  }
  std::string Nodes(int64_t id) {
    return Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%N"}).out;
  }
};

TEST_F(Topology, MultiNodeJobStaysUnderOneLeafSwitch) {
  const int64_t blocker = Submit({"-w", "node01", "--exclusive", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(blocker, {"RUNNING"}), "RUNNING");
  // Free: node02, node03, node04. First fit would take node[02-03] across both leaves.
  const int64_t pair = Submit({"-N2", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(pair, {"RUNNING"}), "RUNNING");
  EXPECT_EQ(Nodes(pair), "node[02,04]\n");
  Run({"scancel", std::to_string(pair)});
  WaitDone(pair);
  // Free: node03 (leafA) and node04 (leafB). --switches=1 waits (up to its 1 minute).
  const int64_t other = Submit({"-w", "node02", "--exclusive", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(other, {"RUNNING"}), "RUNNING");
  const int64_t spread = Submit({"-N2", "--switches=1@1", "--wrap", "true"});
  EXPECT_EQ(WaitState(spread, {"RUNNING", "COMPLETED"}, 3'000), "PENDING");
  Run({"scancel", std::to_string(spread)});
  const int64_t ok = Submit({"-N2", "--switches=2", "--wrap", "true"});
  EXPECT_EQ(WaitDone(ok), "COMPLETED");
  EXPECT_EQ(Nodes(ok), "node[03-04]\n");
  auto bad = Run({"sbatch", "--switches=x", "--wrap", "true"});
  EXPECT_NE(bad.exit_code, 0);
  Run({"scancel", std::to_string(blocker), std::to_string(other)});
}

TEST_F(Topology, GpusComeFromOneIslandAndSmallJobsPack) {
  const int64_t one = Submit({"--gres=gpu:1", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(one, {"RUNNING"}), "RUNNING");
  // Lowest free indices would be 1-4, across islands; the 4-GPU job gets 4-7 on the same
  // (partly used) node, leaving the other nodes whole.
  const int64_t four = Submit(
      {"-o", "four.out", "--gres=gpu:4", "--wrap", "echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES"});
  EXPECT_EQ(WaitDone(four), "COMPLETED");
  EXPECT_EQ(ReadFile("four.out"), Nodes(one).substr(0, 6) + " 4,5,6,7\n");
  Run({"scancel", std::to_string(one)});
}

}  // namespace
}  // namespace sluice::testing
