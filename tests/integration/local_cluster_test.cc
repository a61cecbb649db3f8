// One agent per node, and `sluice up` / `sluice down` on a state dir whose daemons partly
// still run: real processes.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cluster_fixture.h"
#include "common/pid_lock.h"
#include "local/proc_scan.h"

namespace sluice::testing {
namespace {

class LocalClusterRestart : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 2;
    return o;
  }
  std::string Conf() const { return cluster_->conf_path(); }
  pid_t AgentPid(const std::string& node) const {
    return PidLock::Holder(AgentSpoolLockPath(cluster_->state_dir() + "/spool/" + node));
  }
  size_t Agents(const std::string& node) const {
    size_t n = 0;
    for (const DaemonProcess& d : FindDaemons("sluiced", Conf())) n += d.node == node;
    return n;
  }
};

TEST_F(LocalClusterRestart, SecondAgentForANodeExitsNamingTheFirst) {
  const pid_t first = AgentPid("node01");
  ASSERT_GT(first, 0);
  RunOptions opts;
  opts.timeout_ms = 10'000;
  RunResult r = RunCommand({cluster_->BinPath("sluiced"), "-f", Conf(), "-N", "node01"}, opts);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sluiced: error: another sluiced already runs for node node01: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("is held by pid " + std::to_string(first) + "\n"), std::string::npos)
      << r.err;
  EXPECT_EQ(AgentPid("node01"), first);
  EXPECT_EQ(Agents("node01"), 1u);
  EXPECT_EQ(WaitDone(Submit({"-w", "node01", "-o", "/dev/null", "--wrap", "true"})), "COMPLETED");
}

TEST_F(LocalClusterRestart, UpStartsOnlyWhatIsMissingAndDownStopsEverything) {
  const pid_t agent1 = AgentPid("node01");
  cluster_->KillController(SIGKILL);
  cluster_->KillAgent(1, SIGKILL);
  ASSERT_TRUE(FindDaemons("sluicectld", Conf()).empty());
  // A second `sluice up` on the same state dir: same config, one new controller and one
  // new agent for node02; node01's agent is the one that never stopped.
  LocalClusterOptions opts = Options();
  opts.state_dir = cluster_->state_dir();
  opts.bin_dir = SelfDir();
  LocalCluster again(opts);
  ASSERT_TRUE(again.Up(30'000).ok());
  EXPECT_EQ(FindDaemons("sluicectld", Conf()).size(), 1u);
  EXPECT_EQ(AgentPid("node01"), agent1);
  EXPECT_EQ(Agents("node01"), 1u);
  EXPECT_EQ(Agents("node02"), 1u);
  EXPECT_EQ(WaitDone(Submit({"-N2", "-o", "/dev/null", "--wrap", "true"})), "COMPLETED");
  // Down finds daemons no pid file names any more.
  std::remove((cluster_->state_dir() + "/run/node01.pid").c_str());
  std::remove((cluster_->state_dir() + "/run/sluicectld.pid").c_str());
  ASSERT_TRUE(LocalCluster::DownStateDir(cluster_->state_dir()).ok());
  EXPECT_TRUE(FindDaemons("sluicectld", Conf()).empty());
  EXPECT_TRUE(FindDaemons("sluiced", Conf()).empty());
  EXPECT_EQ(AgentPid("node01"), 0);
  EXPECT_EQ(AgentPid("node02"), 0);
}

}  // namespace
}  // namespace sluice::testing

namespace sluice::testing {
namespace {

// `sluice config check`: the cluster's own config passes; a fault is named by file:line.
TEST_F(LocalClusterRestart, ConfigCheckPassesTheClustersConfigAndNamesTheLineOfAFault) {
  RunResult ok = Run({"sluice", "config", "check", Conf()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, Conf() + ": OK: 2 nodes (16 GPUs), 1 partitions, 1 controllers, state in "
                              "state/sqlite\n");
  std::string text = ReadFile(Conf()) + "SchedulerType=sched/fastest\n";
  WriteFile("bad.conf", text);
  const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  RunResult bad = Run({"sluice", "config", "check", work_dir() + "/bad.conf"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, work_dir() + "/bad.conf:" + std::to_string(line) +
                         ": SchedulerType=sched/fastest is not supported (sched/backfill or "
                         "sched/builtin)\n");
}

}  // namespace
}  // namespace sluice::testing
