#include "cli/sinfo.h"

#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"

namespace sluice {
namespace {

class SinfoTest : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  int Run(std::vector<std::string> args) { return RunSinfo(args, t.env); }
  NodeInfo* Node(int i) { return t.api.nodes.mutable_nodes(i); }
  TestCli t;
};

TEST_F(SinfoTest, DefaultAggregatesByState) {
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      2    mix node[01-02]\n"
            "gpu*         up   infinite      2   idle node[03-04]\n");
}

TEST_F(SinfoTest, NodeOriented) {
  EXPECT_EQ(Run({"-N"}), 0);
  EXPECT_EQ(t.out.str(),
            "NODELIST   NODES PARTITION STATE \n"
            "node01         1      gpu* mix   \n"
            "node02         1      gpu* mix   \n"
            "node03         1      gpu* idle  \n"
            "node04         1      gpu* idle  \n");
}

TEST_F(SinfoTest, NodeOrientedLong) {
  EXPECT_EQ(Run({"-N", "-l"}), 0);
  EXPECT_EQ(t.out.str(),
            "Mon Nov 30 02:26:17 2026\n"
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY TMP_DISK WEIGHT AVAIL_FE "
            "REASON              \n"
            "node01         1      gpu*       mixed 16      2:8:1  64000        0      1   (null) "
            "none                \n"
            "node02         1      gpu*       mixed 16      2:8:1  64000        0      1   (null) "
            "none                \n"
            "node03         1      gpu*        idle 16      2:8:1  64000        0      1   (null) "
            "none                \n"
            "node04         1      gpu*        idle 16      2:8:1  64000        0      1   (null) "
            "none                \n");
}

TEST_F(SinfoTest, Summarize) {
  EXPECT_EQ(Run({"-s"}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite          2/2/0/4 node[01-04]\n");
}

TEST_F(SinfoTest, PercentFormats) {
  EXPECT_EQ(Run({"-o", "%P %a %l %D %t %N"}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST\n"
            "gpu* up infinite 2 mix node[01-02]\n"
            "gpu* up infinite 2 idle node[03-04]\n");
  t.out.str("");
  EXPECT_EQ(Run({"-N", "-o", "%N %G %C %m %e %T"}), 0);
  EXPECT_EQ(t.out.str(),
            "NODELIST GRES CPUS(A/I/O/T) MEMORY FREE_MEM STATE\n"
            "node01 gpu:8 6/10/0/16 64000 23544 mixed\n"
            "node02 gpu:8 1/15/0/16 64000 23543 mixed\n"
            "node03 gpu:8 0/16/0/16 64000 23542 idle\n"
            "node04 gpu:8 0/16/0/16 64000 23542 idle\n");
}

TEST_F(SinfoTest, NamedFormatAggregatesCpuStates) {
  EXPECT_EQ(Run({"-O", "NodeList,StateLong,CPUsState,Gres,GresUsed,Memory,AllocMem"}), 0);
  EXPECT_EQ(t.out.str(),
            "NODELIST            STATE               CPUS(A/I/O/T)       GRES                "
            "GRES_USED           MEMORY              ALLOCMEM            \n"
            "node01              mixed               6/10/0/16           gpu:8               gpu:4 "
            "              64000               6000                \n"
            "node02              mixed               1/15/0/16           gpu:8               gpu:4 "
            "              64000               1000                \n"
            "node[03-04]         idle                0/32/0/32           gpu:8               gpu:0 "
            "              64000               0                   \n");
}

TEST_F(SinfoTest, ReasonsEmptyWhenHealthy) {
  EXPECT_EQ(Run({"-R"}), 0);
  EXPECT_EQ(t.out.str(), "REASON               USER      TIMESTAMP           NODELIST\n");
}

TEST_F(SinfoTest, ReasonsForDrainedAndDownNodes) {
  Node(2)->set_drain(true);
  Node(2)->set_reason("maint");
  Node(2)->set_reason_time(Ref(3, 0, 0));
  Node(3)->set_drain(true);
  Node(3)->set_reason("maint");
  Node(3)->set_reason_time(Ref(3, 0, 0));
  EXPECT_EQ(Run({"-R"}), 0);
  EXPECT_EQ(t.out.str(),
            "REASON               USER      TIMESTAMP           NODELIST\n"
            "maint                root      2026-11-30T03:00:00 node[03-04]\n");
  t.out.str("");
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      2    mix node[01-02]\n"
            "gpu*         up   infinite      2  drain node[03-04]\n");
  t.out.str("");
  EXPECT_EQ(Run({"-s"}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
            "gpu*         up   infinite          2/0/2/4 node[01-04]\n");
}

TEST_F(SinfoTest, NodeStateNames) {
  Node(0)->set_drain(true);  // mixed + drain
  Node(1)->set_state(NODE_ALLOCATED);
  Node(2)->set_state(NODE_DOWN);
  Node(2)->set_responding(false);
  Node(3)->set_state(NODE_UNKNOWN);
  Node(3)->set_responding(false);
  EXPECT_EQ(Run({"-N", "-h", "-o", "%N %t %T"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "node01 drng draining\nnode02 alloc allocated\nnode03 down* down*\nnode04 unk* unknown*\n");
}

TEST_F(SinfoTest, StateAndPartitionFilters) {
  EXPECT_EQ(Run({"-h", "-t", "idle", "-o", "%N"}), 0);
  EXPECT_EQ(t.out.str(), "node[03-04]\n");
  t.out.str("");
  EXPECT_EQ(Run({"-h", "-p", "nosuch"}), 0);
  EXPECT_EQ(t.out.str(), "");
  EXPECT_EQ(Run({"-t", "bogus"}), 1);
  EXPECT_EQ(t.err.str(), "sinfo: error: Invalid node state specified: bogus\n");
}

TEST_F(SinfoTest, PartitionFilterIsSentAndAppliesWithoutPartitionFields) {
  PartitionInfo* debug = t.api.partitions.add_partitions();
  debug->set_name("debug");
  debug->add_nodes("node04");
  Node(3)->add_partitions("debug");
  EXPECT_EQ(Run({"-h", "-p", "debug", "-o", "%N %t"}), 0);  // no partition field
  EXPECT_EQ(t.out.str(), "node04 idle\n");
  ASSERT_EQ(t.api.node_queries.size(), 1u);
  ASSERT_EQ(t.api.node_queries[0].partitions_size(), 1);
  EXPECT_EQ(t.api.node_queries[0].partitions(0), "debug");
  t.out.str("");
  EXPECT_EQ(Run({"-h", "-N", "-p", "debug", "-o", "%N %P"}), 0);
  EXPECT_EQ(t.out.str(), "node04 debug\n");
  t.out.str("");
  EXPECT_EQ(Run({"-h", "-o", "%N"}), 0);  // no -p: no filter sent
  EXPECT_EQ(t.out.str(), "node[01-04]\n");
  EXPECT_TRUE(t.api.node_queries.back().partitions().empty());
}

TEST_F(SinfoTest, MultiplePartitionsInConfigOrder) {
  PartitionInfo* debug = t.api.partitions.add_partitions();
  debug->set_name("debug");
  debug->add_nodes("node04");
  debug->set_max_time_min(60);
  debug->set_up(false);
  EXPECT_EQ(Run({}), 0);
  EXPECT_EQ(t.out.str(),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      2    mix node[01-02]\n"
            "gpu*         up   infinite      2   idle node[03-04]\n"
            "debug      down    1:00:00      1   idle node04\n");
}

TEST_F(SinfoTest, VersionAndErrors) {
  EXPECT_EQ(Run({"--version"}), 0);
  EXPECT_EQ(t.out.str(), "slurm 22.05.8\n");
  EXPECT_EQ(Run({"--bogus"}), 1);
  EXPECT_EQ(t.err.str(),
            "sinfo: unrecognized option '--bogus'\nTry \"sinfo --help\" for more information\n");
  t.err.str("");
  EXPECT_EQ(Run({"-o", "%N %!"}), 1);
  EXPECT_EQ(t.err.str(), "sinfo: error: Invalid node format specification: !\n");
  t.err.str("");
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            "slurm_load_partitions: Unable to contact slurm controller (connect failure)\n");
}

TEST_F(SinfoTest, GetoptOrderAbbreviationsAndDoubleDash) {
  EXPECT_EQ(Run({"--stat", "idle", "--form=%N", "--noh"}), 0);
  EXPECT_EQ(t.out.str(), "node[03-04]\n");
  const std::string tail = "Try \"sinfo --help\" for more information\n";
  EXPECT_EQ(Run({"-h", "--", "-N"}), 1);
  EXPECT_EQ(t.err.str(), "sinfo: error: Unrecognized option: -N\n" + tail);
  t.err.str("");
  EXPECT_EQ(Run({"--f"}), 1);
  EXPECT_EQ(t.err.str(),
            "sinfo: option '--f' is ambiguous; possibilities: '--format' '--federation' "
            "'--future'\n" +
                tail);
}

}  // namespace
}  // namespace sluice
