// Two controllers on PostgreSQL, each in network namespaces of its own (`sluice up
// --isolated --ha 2`: the database reached over the isolated network's bridge), facing the
// failures a network causes: the leader's machine lost (its link cut: no agent, command or
// database reaches it) and a partition between the leader and one agent. Nothing acked is
// lost, nothing runs twice at once, and the cut leader acts no more.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace sluice::testing {
namespace {

class HaNetns : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.isolated = true;
    o.controllers = 2;
    o.nodes = 2;
    // Longer than a failover (lease 3 s, then the agents' registration with the new
    // leader): with 4 s a new leader sometimes declared a node dead that had only been
    // waiting for it, and requeued its job (CI, once).
    o.slurmd_timeout_s = 12;
    o.extra_config_lines = {"SlurmctldTimeout=3"};
    return o;
  }
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "--isolated needs root (network namespaces)";
    if (access("/usr/lib/postgresql/15/bin/postgres", X_OK) != 0)
      GTEST_SKIP() << "no PostgreSQL 15 server binaries";
    ClusterTest::SetUp();
    ASSERT_TRUE(cluster_->isolated());
  }
  int Leader() { return cluster_->LeadingController(); }
  int WaitLeader(int not_k, int timeout_ms) {
    const int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
    for (int k = Leader(); RealClock::MonotonicMs() < deadline; k = Leader()) {
      if (k >= 0 && k != not_k) return k;
      usleep(50'000);
    }
    return -1;
  }
  std::string Log(int k) { return ReadFile(cluster_->ControllerLogPath(k)); }
  // A job that notes "ID HOST NS" every 100 ms for `seconds` in beats.log.
  int64_t SubmitBeating(int seconds, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"-o", "/dev/null", "--requeue"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(),
                {"--wrap", "for i in $(seq " + std::to_string(seconds * 10) +
                               "); do echo $SLURM_JOB_ID $(hostname) $(date +%s%N) >> " +
                               work_dir() + "/beats.log; sleep 0.1; done"});
    return Submit(args);
  }
  // For each job: the hosts it beat on in order, failing if two runs overlapped in time.
  std::map<std::string, std::vector<std::string>> RunsWithoutOverlap() {
    std::map<std::string, std::vector<std::pair<std::string, int64_t>>> beats;
    std::istringstream in(ReadFile(work_dir() + "/beats.log"));
    std::string id, host;
    int64_t ns = 0;
    while (in >> id >> host >> ns) beats[id].push_back({host, ns});
    std::map<std::string, std::vector<std::string>> hosts;
    for (auto& [job, list] : beats) {
      std::sort(list.begin(), list.end(),
                [](const auto& a, const auto& b) { return a.second < b.second; });
      for (const auto& [h, t] : list)
        if (hosts[job].empty() || hosts[job].back() != h) hosts[job].push_back(h);
      // Sorted by time, a job's host changes once per run: a run interleaved with another
      // (two at once) shows as a host coming back.
      std::vector<std::string> seen = hosts[job];
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end())
          << "job " << job << " ran on two nodes at once";
    }
    return hosts;
  }
};

TEST_F(HaNetns, TheLeadersMachineLostAStandbyLeadsAndTheCutLeaderActsNoMore) {
  const int old = Leader();
  ASSERT_GE(old, 0);
  const pid_t old_pid = cluster_->ControllerPid(old);
  const int64_t running = SubmitBeating(8);
  ASSERT_EQ(WaitState(running, {"RUNNING"}), "RUNNING");
  const int64_t cut = RealClock::MonotonicMs();
  ASSERT_TRUE(cluster_->SetControllerLink(old, false).ok());
  ASSERT_EQ(WaitLeader(old, 20'000), 1 - old);
  const int64_t led = RealClock::MonotonicMs() - cut;
  int64_t acked = 0;
  for (int i = 0; i < 100 && acked == 0; ++i) {
    RunResult r =
        Run({"sbatch", "--parsable", "-o", "/dev/null", "--wrap", "true"}, {.timeout_ms = 5000});
    if (r.exit_code == 0) acked = std::atoll(r.out.c_str());
  }
  ASSERT_GT(acked, 0);
  std::cerr << "leader machine lost: standby leads after " << led << " ms, first submission "
            << RealClock::MonotonicMs() - cut << " ms\n";
  EXPECT_LT(led, 10'000);
  EXPECT_EQ(WaitDone(acked), "COMPLETED");
  // The cut leader learnt it lost the lease (it could not renew it) and stepped down.
  for (int i = 0; i < 100 && ProcessAlive(old_pid); ++i) usleep(100'000);
  EXPECT_FALSE(ProcessAlive(old_pid)) << "the cut leader did not step down";
  EXPECT_NE(Log(old).find("lost the controller lease"), std::string::npos) << Log(old);
  // The job that ran through it all ran once, on one node.
  EXPECT_EQ(WaitDone(running), "COMPLETED");
  EXPECT_EQ(RunsWithoutOverlap()[std::to_string(running)].size(), 1u);
  // Its machine back, the old leader stands by.
  ASSERT_TRUE(cluster_->SetControllerLink(old, true).ok());
  ASSERT_TRUE(cluster_->StartControllerAt(old).ok());
  usleep(1'500'000);
  EXPECT_EQ(Leader(), 1 - old);
  EXPECT_GT(cluster_->ControllerPid(old), 0);
}

TEST_F(HaNetns, APartitionBetweenTheLeaderAndAnAgentMovesItsJobWithoutRunningItTwice) {
  const int leader = Leader();
  ASSERT_GE(leader, 0);
  // The job on node01 (node02 drained meanwhile), node02 free again to take it over.
  ASSERT_EQ(Run({"scontrol", "update", "nodename=node02", "state=drain", "reason=setup"}).exit_code,
            0);
  const int64_t job = SubmitBeating(6);
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  ASSERT_EQ(Run({"scontrol", "update", "nodename=node02", "state=resume"}).exit_code, 0);
  ASSERT_TRUE(cluster_->SetControllerReachesNode(leader, 0, false).ok());
  // node01's agent hears from no leader: it fences its job; the leader, hearing nothing
  // from node01 for SlurmdTimeout, requeues the job onto node02.
  std::string where;
  for (int i = 0; i < 300 && where != "node02"; ++i) {
    where = Run({"squeue", "-h", "-j", std::to_string(job), "-o", "%T %N"}).out;
    where = where.rfind("RUNNING ", 0) == 0 ? where.substr(8, where.size() - 9) : "";
    if (where != "node02") usleep(100'000);
  }
  EXPECT_EQ(where, "node02");
  EXPECT_EQ(WaitDone(job, 60'000), "COMPLETED");
  EXPECT_EQ(Leader(), leader);  // the database still reached it: no failover
  ASSERT_TRUE(cluster_->SetControllerReachesNode(leader, 0, true).ok());
  EXPECT_EQ(RunsWithoutOverlap()[std::to_string(job)],
            (std::vector<std::string>{"node01", "node02"}));
  EXPECT_NE(Run({"scontrol", "show", "job", std::to_string(job)}).out.find("Restarts=1"),
            std::string::npos);
  // node01 heard again registers and takes jobs.
  EXPECT_EQ(WaitDone(Submit({"-o", "/dev/null", "-w", "node01", "--wrap", "true"}), 60'000),
            "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
