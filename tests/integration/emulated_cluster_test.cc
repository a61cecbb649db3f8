// An emulated large cluster (LocalClusterOptions::agents, sluiced --nodes): 256 nodes
// served by two sluiced processes of 128 nodes each, over the real protocol. A job across
// all 256 nodes runs to completion with one rank per task and one MASTER_ADDR; the death
// of one agent process takes its 128 nodes down and the jobs on them are requeued and
// rerun on the other 128.
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cluster_fixture.h"
#include "common/hostlist.h"
#include "local/node_kill.h"

namespace sluice::testing {
namespace {

class EmulatedCluster : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 256;
    o.agents = 2;
    o.cpus_per_node = 2;
    // Long enough that a 512-task launch on a loaded 2-core machine does not starve the
    // heartbeats into fencing (the kill test waits this long for the requeue).
    o.slurmd_timeout_s = 10;
    return o;
  }

  std::set<std::string> NodesOf(int64_t id) {
    auto r = Run({"squeue", "-h", "-j", std::to_string(id), "-o", "%N"});
    std::string expr = r.out.substr(0, r.out.find('\n'));
    auto names = ExpandHostlist(expr);
    return names.ok() ? std::set<std::string>(names->begin(), names->end())
                      : std::set<std::string>{};
  }
};

TEST_F(EmulatedCluster, TwoAgentProcessesServeAllNodes) {
  EXPECT_EQ(cluster_->AgentGroupNodes(0), "node[001-128]");
  EXPECT_EQ(cluster_->AgentGroupNodes(1), "node[129-256]");
  auto r = Run({"sinfo", "-h", "-o", "%D %T"});
  EXPECT_EQ(r.out, "256 idle\n");
  auto show = Run({"scontrol", "show", "node", "node200"});
  EXPECT_NE(show.out.find("Gres=gpu:8"), std::string::npos) << show.out;
}

TEST_F(EmulatedCluster, AJobOnAll256NodesRunsEveryRankOnce) {
  WriteFile("wide.sh",
            "#!/bin/bash\n" + cluster_->BinPath("srun") +
                " bash -c 'echo $RANK $WORLD_SIZE $LOCAL_RANK $MASTER_ADDR $SLURMD_NODENAME'\n");
  int64_t id = Submit({"-N", "256", "--ntasks-per-node=2", "--gres=gpu:8", "-o", "wide.out",
                       work_dir() + "/wide.sh"});
  ASSERT_EQ(WaitDone(id, 240'000), "COMPLETED");
  std::set<int> ranks;
  std::set<std::string> masters, world;
  std::map<std::string, std::set<int>> local_ranks;  // node -> LOCAL_RANKs seen there
  for (const std::string& line : ReadLines("wide.out")) {
    std::istringstream in(line);
    int rank = -1, local = -1;
    std::string size, master, node;
    ASSERT_TRUE(in >> rank >> size >> local >> master >> node) << line;
    EXPECT_TRUE(ranks.insert(rank).second) << "rank " << rank << " ran twice";
    world.insert(size);
    masters.insert(master);
    local_ranks[node].insert(local);
  }
  ASSERT_EQ(ranks.size(), 512u);
  EXPECT_EQ(*ranks.begin(), 0);
  EXPECT_EQ(*ranks.rbegin(), 511);
  EXPECT_EQ(world, std::set<std::string>{"512"});
  EXPECT_EQ(masters.size(), 1u);
  ASSERT_EQ(local_ranks.size(), 256u);
  for (const auto& [node, locals] : local_ranks) EXPECT_EQ(locals, (std::set<int>{0, 1})) << node;
}

// Run 0 waits; the rerun after a requeue says where it ran and ends.
const char kRestartScript[] =
    "echo run ${SLURM_RESTART_COUNT:-0} on $SLURM_JOB_NODELIST; "
    "[ ${SLURM_RESTART_COUNT:-0} -ge 1 ] || sleep 300";

TEST_F(EmulatedCluster, KillingAnAgentOf128NodesRequeuesTheJobsOnThem) {
  // 4 x 32 nodes: as many as the surviving half has, wherever they were placed.
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i)
    ids.push_back(Submit({"-N", "32", "-o", "r-%j.out", "--wrap", kRestartScript}));
  for (int64_t id : ids) ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  auto dead = ExpandHostlist(cluster_->AgentGroupNodes(0));
  ASSERT_TRUE(dead.ok());
  const std::set<std::string> dead_nodes(dead->begin(), dead->end());
  std::vector<int64_t> hit, spared;
  for (int64_t id : ids) {
    bool on_dead = false;
    for (const std::string& n : NodesOf(id)) on_dead |= dead_nodes.count(n) > 0;
    (on_dead ? hit : spared).push_back(id);
  }
  ASSERT_FALSE(hit.empty());
  ASSERT_GT(KillAgentGroupProcesses(*cluster_, 0), 0);

  for (int64_t id : hit) {
    EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED") << id;
    auto out = ReadLines("r-" + std::to_string(id) + ".out");
    ASSERT_EQ(out.size(), 2u) << id;
    EXPECT_EQ(out[0].rfind("run 0 on ", 0), 0u) << out[0];
    // The rerun's restart count may exceed 1: a relaunch onto a dead node its controller
    // has not yet declared DOWN is requeued again before it starts (it prints nothing).
    int restarts = 0;
    char nodes[256] = {};
    ASSERT_EQ(std::sscanf(out[1].c_str(), "run %d on %255s", &restarts, nodes), 2) << out[1];
    EXPECT_GE(restarts, 1) << out[1];
    auto rerun = ExpandHostlist(nodes);
    ASSERT_TRUE(rerun.ok()) << out[1];
    EXPECT_EQ(rerun->size(), 32u);
    for (const std::string& n : *rerun) EXPECT_EQ(dead_nodes.count(n), 0u) << n;
  }
  for (int64_t id : spared) EXPECT_EQ(State(id), "RUNNING") << id;
  auto down = Run({"sinfo", "-h", "-t", "down", "-o", "%D"});
  EXPECT_EQ(down.out, "128\n");
  for (int64_t id : spared) Run({"scancel", std::to_string(id)});
}

TEST_F(EmulatedCluster, AgentArgumentsThatCannotWorkAreRefused) {
  RunOptions opts;
  opts.timeout_ms = 10'000;
  auto sluiced = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {cluster_->BinPath("sluiced"), "-f", cluster_->conf_path()});
    return RunCommand(args, opts);
  };
  RunResult both = sluiced({"-N", "node001", "--nodes", "node[001-002]"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_EQ(both.err, "sluiced: error: -N and --nodes exclude each other\n");
  // node128 and node129 belong to different agent processes: different ports.
  RunResult split = sluiced({"--nodes", "node[128-129]"});
  EXPECT_EQ(split.exit_code, 1);
  EXPECT_NE(split.err.find("the nodes of one sluiced must share NodeAddr and Port"),
            std::string::npos)
      << split.err;
  RunResult twice = sluiced({"--nodes", "node[001-128]"});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("another sluiced already runs for node node001"), std::string::npos)
      << twice.err;
  RunResult unknown = sluiced({"--nodes", "node[300-301]"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("node300"), std::string::npos) << unknown.err;
  // The cluster is untouched.
  EXPECT_EQ(Run({"sinfo", "-h", "-o", "%D %T"}).out, "256 idle\n");
}

TEST_F(EmulatedCluster, UpRefusesThousandsOfNodesWithoutAgentProcesses) {
  RunOptions opts;
  opts.timeout_ms = 10'000;
  RunResult r = RunCommand(
      {cluster_->BinPath("sluice"), "up", "--nodes", "2000", "--state-dir", work_dir() + "/big"},
      opts);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sluice: error: more than 1000 nodes need --agents (emulated nodes)\n");
  EXPECT_FALSE(std::filesystem::exists(work_dir() + "/big"));
}

}  // namespace
}  // namespace sluice::testing
