#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/config.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

Config EightNodes() {
  auto c = ParseConfig("NodeName=node[001-008] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n",
                       "s.conf");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

std::string TopologyError(std::string_view text) {
  Config c = EightNodes();
  Status st = ApplyTopologyConf(text, "topology.conf", &c);
  EXPECT_FALSE(st.ok()) << text;
  return st.message();
}

TEST(TopologyConf, TreeOfLeavesAndSpine) {
  Config c = EightNodes();
  ASSERT_TRUE(ApplyTopologyConf("# fat tree\n"
                                "SwitchName=leaf1 Nodes=node[001-004] LinkSpeed=100\n"
                                "SwitchName=leaf2 Nodes=node[005-008]\n"
                                "SwitchName=spine Switches=leaf[1-2]\n",
                                "topology.conf", &c)
                  .ok());
  ASSERT_EQ(c.switches.size(), 3u);
  EXPECT_EQ(c.switches[0].name, "leaf1");
  EXPECT_EQ(c.switches[0].nodes,
            (std::vector<std::string>{"node001", "node002", "node003", "node004"}));
  EXPECT_EQ(c.switches[2].switches, (std::vector<std::string>{"leaf1", "leaf2"}));
}

TEST(TopologyConf, ErrorsNameTheLine) {
  EXPECT_EQ(TopologyError("SwitchName=s1 Nodes=node[001-009]\n"),
            "topology.conf:1: switch s1: unknown node 'node009'");
  EXPECT_EQ(TopologyError("SwitchName=s1 Nodes=node001\nSwitchName=s2 Nodes=node001\n"),
            "topology.conf:2: node node001 is under switches s1 and s2");
  EXPECT_EQ(TopologyError("SwitchName=s1\nSwitchName=top Switches=s[1-2]\n"),
            "topology.conf:2: switch top: unknown switch 's2'");
  EXPECT_EQ(TopologyError("SwitchName=a Switches=b\nSwitchName=b Switches=a\n"),
            "topology.conf:1: switch a is part of a cycle");
  EXPECT_EQ(TopologyError("SwitchName=a Speed=1\n"), "topology.conf:1: unknown key 'Speed'");
  EXPECT_EQ(TopologyError("SwitchName=a\nSwitchName=a\n"),
            "topology.conf:2: switch a defined twice");
}

TEST(TopologyConf, LoadedBesideTheConfigWithTheTreePlugin) {
  const std::string dir = std::filesystem::temp_directory_path() / "sluice_topo_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/sluice.conf") << "TopologyPlugin=topology/tree\nNodeName=n[1-2] CPUs=1\n"
                                         "PartitionName=p Nodes=ALL\n";
  auto missing = LoadConfigFile(dir + "/sluice.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("TopologyPlugin=topology/tree"));
  std::ofstream(dir + "/topology.conf") << "SwitchName=s Nodes=n[1-2]\n";
  auto loaded = LoadConfigFile(dir + "/sluice.conf");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->topology_tree);
  EXPECT_EQ(loaded->switches.size(), 1u);
  auto bad = ParseConfig("TopologyPlugin=topology/3d_torus\n", "x.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("expected topology/tree or topology/none"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sluice
