// `sluice up --isolated` (local/isolated_net.h): every node in network, UTS and mount
// namespaces of its own. Needs root (skipped clearly without it):
//   - each node has its own hostname and address, every node name resolves inside jobs
//     (IPv4 and v4-mapped IPv6), and the host's /etc/hosts is untouched;
//   - the usual DDP batch shape (MASTER_ADDR from `scontrol show hostnames`) runs across
//     two nodes with gloo, no fallback address;
//   - a network cut (the node's link taken down) longer than SlurmdTimeout: the node
//     fences its job (node_common/node_lease.h) before the controller requeues it, so the
//     job never runs twice at once; the restored node comes back and takes work again.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/text_util.h"

namespace sluice::testing {
namespace {

class Isolated : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.isolated = true;
    return o;
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "--isolated needs root (network namespaces)";
    host_hosts_ = ReadFile("/etc/hosts");
    ClusterTest::SetUp();
    ASSERT_TRUE(cluster_->isolated());
    auto config = LoadConfigFile(cluster_->conf_path());
    ASSERT_TRUE(config.ok()) << config.status().message();
    for (const NodeConfig& n : config->nodes) addr_[n.name] = n.addr;
    bridge_ifindex_ = BridgeIfindex();
    ASSERT_FALSE(bridge_ifindex_.empty());
  }
  std::string Index() const {  // 10.213.K.x
    const std::string& addr = addr_.begin()->second;
    return addr.substr(7, addr.rfind('.') - 7);
  }
  // Interface numbers are handed out cyclically, so a bridge made again under the same
  // name (by another test that claims the index this one freed) has another number.
  std::string BridgeIfindex() {
    return std::string(Trim(ReadFile("/sys/class/net/slbr" + Index() + "/ifindex")));
  }
  void TearDown() override {
    ClusterTest::TearDown();
    if (!IsSkipped() && !bridge_ifindex_.empty()) {
      EXPECT_EQ(ReadFile("/etc/hosts"), host_hosts_) << "the host's /etc/hosts was changed";
      // `sluice down` removed every namespace and link it made.
      // A test running beside this one may claim the freed index at once: the bridge is
      // made first, so namespaces under this index are only allowed beside a new bridge.
      for (const auto& [node, addr] : addr_) {
        bool netns = std::filesystem::exists("/run/netns/sluice" + Index() + "-" + node);
        std::string bridge = BridgeIfindex();
        EXPECT_NE(bridge, bridge_ifindex_) << "slbr" << Index() << " is still there";
        EXPECT_TRUE(!netns || !bridge.empty()) << node << "'s namespace is still there";
      }
    }
  }
  std::string host_hosts_;
  std::map<std::string, std::string> addr_;  // node -> NodeAddr
  std::string bridge_ifindex_;
};

TEST_F(Isolated, EachNodeHasItsOwnHostnameAndEveryNodeNameResolves) {
  WriteFile("job.sh",
            "#!/bin/bash\n"
            "#SBATCH -N4 --ntasks-per-node=1 -o names-%j.out\n"
            "export PATH=" +
                BinDir() +
                ":$PATH\n"
                "srun bash -c 'echo \"task $SLURMD_NODENAME $(hostname) "
                "$(getent ahostsv4 node01 | head -n1 | cut -d\" \" -f1) "
                "$(getent ahostsv4 node04 | head -n1 | cut -d\" \" -f1) "
                "$(getent hosts ::ffff:$(getent ahostsv4 $(hostname) | head -n1 | cut -d\" \" -f1) "
                "| tr -s \" \" | cut -d\" \" -f2)\"'\n");
  int64_t id = Submit({"job.sh"});
  EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED");
  std::string out = ReadFile("names-" + std::to_string(id) + ".out");
  std::vector<std::string> want;
  for (const std::string& n : {"node01", "node02", "node03", "node04"}) {
    want.push_back("task " + n + " " + n + " " + addr_["node01"] + " " + addr_["node04"] + " " + n);
  }
  EXPECT_EQ(SortedLines(out, "task "), want) << out;
  // The host keeps its own name.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(HostName(), std::string(host).substr(0, std::string(host).find('.')));
  EXPECT_NE(std::string(host), "node01");
}

TEST_F(Isolated, WrapperStyleDdpRunsAcrossTwoNodesByName) {
  auto probe = RunCommand(
      {"/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()"});
  if (probe.exit_code != 0)
    GTEST_SKIP() << "python3-torch with gloo is not installed under /usr/bin/python3";
  WriteFile("train.py",
            "import os, socket, torch, torch.distributed as dist\n"
            "e = os.environ\n"
            "dist.init_process_group('gloo', init_method='env://')\n"
            "r, w = dist.get_rank(), dist.get_world_size()\n"
            "t = torch.tensor([float(r + 1)])\n"
            "dist.all_reduce(t)\n"
            "print(f\"rank {r} world {w} host {socket.gethostname()} master {e['MASTER_ADDR']} sum "
            "{int(t.item())}\","
            " flush=True)\n"
            "dist.destroy_process_group()\n");
  WriteFile(
      "job.sh",
      "#!/bin/bash\n"
      "#SBATCH --nodes=2 --ntasks-per-node=2 --gres=gpu:2\n"
      "#SBATCH -o train-%j.out\n"
      "export PATH=" +
          BinDir() +
          ":$PATH\n"
          "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
          "srun /usr/bin/python3 train.py\n");
  int64_t id = Submit({"job.sh"});
  std::string state = WaitDone(id, 120'000);
  std::string out = ReadFile("train-" + std::to_string(id) + ".out");
  EXPECT_EQ(state, "COMPLETED") << out;
  EXPECT_EQ(SortedLines(out, "rank "),
            (std::vector<std::string>{"rank 0 world 4 host node01 master node01 sum 10",
                                      "rank 1 world 4 host node01 master node01 sum 10",
                                      "rank 2 world 4 host node02 master node01 sum 10",
                                      "rank 3 world 4 host node02 master node01 sum 10"}))
      << out;
}

class IsolatedNetworkCut : public Isolated {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = Isolated::Options();
    o.slurmd_timeout_s = 4;
    return o;
  }
  // The lines of runs.log: "start <restart> <node> <ns>".
  std::vector<std::string> Runs() { return ReadLines("runs.log"); }
};

TEST_F(IsolatedNetworkCut, NodeCutLongerThanSlurmdTimeoutRunsTheJobOnce) {
  // Each run logs its start, then stamps alive.<restart> every 20 ms while it lives.
  int64_t job = Submit(
      {"-o", "/dev/null", "--wrap",
       "r=${SLURM_RESTART_COUNT:-0}; echo start $r $SLURMD_NODENAME $(date +%s%N) >> runs.log; "
       "while :; do date +%s%N > alive.$r.tmp; mv alive.$r.tmp alive.$r; sleep 0.02; done"});
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  int64_t deadline = RealClock::MonotonicMs() + 10'000;
  while (Runs().empty() && RealClock::MonotonicMs() < deadline) usleep(50'000);
  ASSERT_EQ(Runs().size(), 1u);
  std::istringstream first(Runs()[0]);
  std::string word, restart, node;
  first >> word >> restart >> node;
  ASSERT_EQ(restart, "0");
  int index = std::stoi(node.substr(4)) - 1;
  ASSERT_TRUE(cluster_->SetNodeLink(index, false).ok());
  int64_t cut_at = RealClock::MonotonicMs();
  // SlurmdTimeout later the controller declares the node DOWN and requeues the job.
  deadline = RealClock::MonotonicMs() + 30'000;
  while (Runs().size() < 2 && RealClock::MonotonicMs() < deadline) usleep(50'000);
  std::vector<std::string> runs = Runs();
  ASSERT_EQ(runs.size(), 2u) << "job was not requeued";
  std::istringstream second(runs[1]);
  std::string restart2, node2;
  int64_t start2_ns = 0;
  second >> word >> restart2 >> node2 >> start2_ns;
  EXPECT_EQ(restart2, "1");
  EXPECT_NE(node2, node);
  // The cut-off copy stamped its last sign of life before the new copy started.
  int64_t last_alive_ns = std::stoll(ReadFile("alive.0"));
  EXPECT_LT(last_alive_ns, start2_ns)
      << "both copies ran at once for " << (last_alive_ns - start2_ns) / 1'000'000 << " ms";
  EXPECT_GE(RealClock::MonotonicMs() - cut_at, 3'000) << "requeued before SlurmdTimeout";
  // The link comes back: the node registers again and takes work; the old copy stays dead.
  ASSERT_TRUE(cluster_->SetNodeLink(index, true).ok());
  std::string state;
  deadline = RealClock::MonotonicMs() + 60'000;
  while (RealClock::MonotonicMs() < deadline) {
    state = std::string(Trim(Run({"sinfo", "-h", "-N", "-n", node, "-o", "%t"}).out));
    if (state == "idle") break;
    usleep(200'000);
  }
  EXPECT_EQ(state, "idle");
  EXPECT_EQ(std::stoll(ReadFile("alive.0")), last_alive_ns);
  EXPECT_EQ(State(job), "RUNNING");
  EXPECT_EQ(std::string(Trim(Run({"squeue", "-h", "-j", std::to_string(job), "-o", "%N"}).out)),
            node2);
  int64_t on_cut_node = Submit({"-w", node, "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(WaitDone(on_cut_node, 30'000), "COMPLETED");
  Run({"scancel", std::to_string(job)});
  EXPECT_EQ(WaitDone(job), "CANCELLED");
}

}  // namespace
}  // namespace sluice::testing
