// Node health: HealthCheckProgram drains a failing node with the program's last output
// line and lifts its own drain when the program passes again (never an admin's drain);
// Prolog/Epilog run around each batch job with the SLURM_JOB_* environment, a failing
// prolog drains the node and requeues the job elsewhere, a failing epilog drains the
// node; `scontrol update State=RESUME` returns drained nodes. A node whose agent stops
// answering (SIGSTOP) fences its job before the job is requeued elsewhere, and the agent
// that comes back (SIGCONT) re-registers its node.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class Health : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    const std::string d = root_dir_;
    // The last line the program prints is the drain reason.
    WriteShellScript(d + "/health.sh", "echo $SLURMD_NODENAME >> " + d +
                                           "/health.runs\n"
                                           "if [ -e " +
                                           d +
                                           "/sick.$SLURMD_NODENAME ]; then\n"
                                           "  cat " +
                                           d + "/sick.$SLURMD_NODENAME\n  exit 1\nfi\n");
    std::string log_line =
        "$SLURM_JOB_ID $SLURM_JOB_USER $SLURM_JOB_UID $SLURM_JOB_NODELIST $SLURM_JOB_PARTITION "
        "$SLURMD_NODENAME $SLURM_SCRIPT_CONTEXT >> " +
        d + "/scripts.log\n";
    WriteShellScript(d + "/prolog.sh", "echo prolog " + log_line + "[ -e " + d +
                                           "/badprolog.$SLURMD_NODENAME ] && exit 3\nexit 0\n");
    WriteShellScript(d + "/epilog.sh", "echo epilog " + log_line + "[ -e " + d +
                                           "/badepilog.$SLURMD_NODENAME ] && exit 4\nexit 0\n");
    o.extra_config_lines = {"HealthCheckProgram=" + d + "/health.sh", "HealthCheckInterval=1",
                            "HealthCheckNodeState=ANY,CYCLE", "Prolog=" + d + "/prolog.sh",
                            "Epilog=" + d + "/epilog.sh"};
    return o;
  }

  // "state|reason" of a node as sinfo prints it.
  std::string NodeStateReason(const std::string& node) {
    return Trim(Run({"sinfo", "-h", "-N", "-n", node, "-o", "%t|%E"}).out);
  }
  std::string WaitNode(const std::string& node, const std::string& want, int timeout_ms = 20'000) {
    int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
    std::string s;
    while (RealClock::MonotonicMs() < deadline) {
      if ((s = NodeStateReason(node)) == want) break;
      usleep(100'000);
    }
    return s;
  }
  int HealthRuns(const std::string& node) {
    std::stringstream in(ReadFile(root_dir_ + "/health.runs"));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) n += line == node;
    return n;
  }
  void Scontrol(std::vector<std::string> args) {
    args.insert(args.begin(), "scontrol");
    auto r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST_F(Health, FailingCheckDrainsWithLastLineAndPassingCheckUndrainsOnlyItsOwnDrain) {
  EXPECT_GT(HealthRuns("node02"), 0);  // ran at agent start
  std::ofstream(root_dir_ + "/sick.node02") << "checking gpus\nGPU 3 uncorrectable ECC errors\n";
  EXPECT_EQ(WaitNode("node02", "drain|GPU 3 uncorrectable ECC errors"),
            "drain|GPU 3 uncorrectable ECC errors");
  // A drained node takes no new job: four whole nodes cannot start.
  int64_t wide = Submit({"-N4", "-o", "/dev/null", "--wrap", "true"});
  usleep(500'000);
  EXPECT_EQ(State(wide), "PENDING");
  // Passing again lifts the health check's own drain; the job then runs.
  fs::remove(root_dir_ + "/sick.node02");
  EXPECT_EQ(WaitNode("node02", "idle|none"), "idle|none");
  EXPECT_EQ(WaitDone(wide), "COMPLETED");
  // An admin drain is never lifted by a passing check.
  Scontrol({"update", "NodeName=node03", "State=DRAIN", "Reason=maintenance"});
  int runs = HealthRuns("node03");
  int64_t deadline = RealClock::MonotonicMs() + 20'000;
  while (HealthRuns("node03") < runs + 3 && RealClock::MonotonicMs() < deadline) usleep(100'000);
  EXPECT_GE(HealthRuns("node03"), runs + 3);
  EXPECT_EQ(NodeStateReason("node03"), "drain|maintenance");
  Scontrol({"update", "NodeName=node03", "State=RESUME"});
  EXPECT_EQ(WaitNode("node03", "idle|none"), "idle|none");
}

TEST_F(Health, ResumeOfAStillFailingNodeIsUndoneByTheNextCheck) {
  std::ofstream(root_dir_ + "/sick.node01") << "fan failure\n";
  ASSERT_EQ(WaitNode("node01", "drain|fan failure"), "drain|fan failure");
  Scontrol({"update", "NodeName=node01", "State=RESUME"});
  // The next run of the program drains it again (as in Slurm) ...
  int runs = HealthRuns("node01");
  int64_t deadline = RealClock::MonotonicMs() + 20'000;
  while (HealthRuns("node01") < runs + 2 && RealClock::MonotonicMs() < deadline) usleep(100'000);
  EXPECT_EQ(WaitNode("node01", "drain|fan failure"), "drain|fan failure");
  // A program that fails without output gives "HealthCheck failed exit N".
  std::ofstream(root_dir_ + "/sick.node04") << "";
  EXPECT_EQ(WaitNode("node04", "drain|HealthCheck failed exit 1"),
            "drain|HealthCheck failed exit 1");
  fs::remove(root_dir_ + "/sick.node01");
  fs::remove(root_dir_ + "/sick.node04");
  EXPECT_EQ(WaitNode("node01", "idle|none"), "idle|none");
  EXPECT_EQ(WaitNode("node04", "idle|none"), "idle|none");
}

TEST_F(Health, PrologFailureDrainsAndRequeuesEpilogFailureDrains) {
  for (std::string n : {"node02", "node03", "node04"}) {
    Scontrol({"update", "NodeName=" + n, "State=DRAIN", "Reason=parked"});
  }
  std::ofstream(root_dir_ + "/badprolog.node01") << "";
  int64_t job = Submit(
      {"-o", "out.txt", "--wrap", "echo ran on $SLURMD_NODENAME restart=$SLURM_RESTART_COUNT"});
  EXPECT_EQ(WaitNode("node01", "drain|Prolog error"), "drain|Prolog error");
  EXPECT_EQ(WaitState(job, {"PENDING"}), "PENDING");  // requeued, nowhere to go yet
  // A failing epilog drains the node the job ran on; the job itself completes.
  std::ofstream(root_dir_ + "/badepilog.node02") << "";
  Scontrol({"update", "NodeName=node02", "State=RESUME"});
  EXPECT_EQ(WaitDone(job), "COMPLETED");
  EXPECT_EQ(ReadFile("out.txt"), "ran on node02 restart=1\n");
  EXPECT_EQ(WaitNode("node02", "drain|Epilog error"), "drain|Epilog error");
  std::string uid = std::to_string(getuid());
  std::string user =
      Trim(Run({"squeue", "-h", "-t", "all", "-j", std::to_string(job), "-o", "%u"}).out);
  std::string id = std::to_string(job);
  std::string log = ReadFile(root_dir_ + "/scripts.log");
  EXPECT_NE(log.find("prolog " + id + " " + user + " " + uid + " node01 gpu node01 prolog_slurmd"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("prolog " + id + " " + user + " " + uid + " node02 gpu node02 prolog_slurmd"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("epilog " + id + " " + user + " " + uid + " node02 gpu node02 epilog_slurmd"),
            std::string::npos)
      << log;
  // RESUME returns a system-drained node.
  Scontrol({"update", "NodeName=node01,node02", "State=RESUME"});
  EXPECT_EQ(WaitNode("node01", "idle|none"), "idle|none");
  EXPECT_EQ(WaitNode("node02", "idle|none"), "idle|none");
}

pid_t ReadPidFile(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

bool Alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

// An agent that hangs (SIGSTOP) for longer than SlurmdTimeout: the node's stepd fences
// the job when the node's lease runs out (node_common/node_lease.h), before the
// controller declares the node DOWN and runs the job elsewhere, so the two copies never
// overlap; the agent that wakes up re-registers and its node takes work again.
class SilentAgent : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.slurmd_timeout_s = 4;
    return o;
  }
};

TEST_F(SilentAgent, JobIsFencedBeforeItRunsElsewhere) {
  int64_t job =
      Submit({"-o", "/dev/null", "--wrap",
              "r=${SLURM_RESTART_COUNT:-0}; echo $r $$ $SLURMD_NODENAME $(date +%s%N) >> runs.log; "
              "while :; do date +%s%N > alive.$r.tmp; mv alive.$r.tmp alive.$r; sleep 0.02; done"});
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  auto runs = [&] { return ReadLines("runs.log"); };
  int64_t deadline = RealClock::MonotonicMs() + 10'000;
  while (runs().empty() && RealClock::MonotonicMs() < deadline) usleep(50'000);
  ASSERT_EQ(runs().size(), 1u);
  std::stringstream l0(runs()[0]);
  std::string restart, node;
  pid_t old_pid = 0;
  l0 >> restart >> old_pid >> node;
  ASSERT_TRUE(Alive(old_pid));
  pid_t agent = ReadPidFile(cluster_->state_dir() + "/run/" + node + ".pid");
  ASSERT_TRUE(Alive(agent));
  ASSERT_EQ(::kill(agent, SIGSTOP), 0);
  // After SlurmdTimeout the job is requeued and runs elsewhere; the old copy was fenced.
  deadline = RealClock::MonotonicMs() + 30'000;
  while (runs().size() < 2 && RealClock::MonotonicMs() < deadline) usleep(50'000);
  std::vector<std::string> all = runs();
  bool old_alive = Alive(old_pid);
  ::kill(agent, SIGCONT);
  ASSERT_EQ(all.size(), 2u) << "job was not requeued";
  EXPECT_FALSE(old_alive) << "the silent node's copy still ran when the job started elsewhere";
  std::stringstream l1(all[1]);
  std::string restart2, node2;
  pid_t new_pid = 0;
  int64_t start2_ns = 0;
  l1 >> restart2 >> new_pid >> node2 >> start2_ns;
  EXPECT_EQ(restart2, "1");
  EXPECT_NE(node2, node);
  int64_t last_alive_ns = std::stoll(ReadFile("alive.0"));
  EXPECT_LT(last_alive_ns, start2_ns)
      << "both copies ran at once for " << (last_alive_ns - start2_ns) / 1'000'000 << " ms";
  EXPECT_TRUE(Alive(new_pid));
  // The agent is back: its node registers again and is idle; the new copy runs on.
  std::string node_state;
  deadline = RealClock::MonotonicMs() + 20'000;
  while (RealClock::MonotonicMs() < deadline) {
    node_state = Trim(Run({"sinfo", "-h", "-N", "-n", node, "-o", "%t"}).out);
    if (node_state == "idle") break;
    usleep(100'000);
  }
  EXPECT_EQ(node_state, "idle");
  EXPECT_EQ(State(job), "RUNNING");
  EXPECT_EQ(Trim(Run({"squeue", "-h", "-j", std::to_string(job), "-o", "%N"}).out), node2);
  Run({"scancel", std::to_string(job)});
  EXPECT_EQ(WaitDone(job), "CANCELLED");
}

}  // namespace
}  // namespace sluice::testing
