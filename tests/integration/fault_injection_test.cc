// Fault injection: a workload of ~200 short jobs (mixed CPU counts, some multi-node, some
// with GPUs) runs on the local cluster while a seeded schedule repeatedly kill -9s the
// controller (then restarts it), kill -9s a node agent (then restarts it), kill -9s
// random job processes, kills an agent between starting a job's stepd and answering the
// launch (the test-only agent build sluiced-faults), kill -9s an agent right after one of
// its jobs was cancelled, kills the controller in a commit (before or after the write) or
// in a scheduling pass and stalls its commits like a slow disk (sluicectld-faults), and,
// as root (the nodes are then isolated, local/isolated_net.h), cuts a node's network for
// longer than SlurmdTimeout while the other faults go on, then restores it (the node
// fences its jobs, the controller requeues them), while a quarter of the jobs do their
// work in an srun step. Afterwards the invariants are checked:
//   lost      acknowledged jobs (sbatch printed an id) that neither the controller nor
//             accounting (sacct: the controller purges ended jobs after MinJobAge) knows
//   overlaps  a job running twice at once: each run takes flock(2) on locks/job.<id>
//             (held until its last process dies) and records a failure to get it, and
//             the start/end markers of the same job must not overlap in time
//   overalloc a GPU index used by two jobs at once on a node: the same with
//             locks/gpu.<node>.<index> for every index in CUDA_VISIBLE_DEVICES (batch
//             host) and the GPU intervals of the markers
//   badstate  a job that did not end COMPLETED although nothing killed it, or ended
//             other than FAILED/COMPLETED after we killed its script (CANCELLED/COMPLETED
//             after we cancelled it), or COMPLETED without an end marker
// Prints `fault-injection: seed=S faults=N jobs=M lost=0 overlaps=0 overalloc=0 failovers=F`.
// FaultInjectionHa runs it all with two controllers on PostgreSQL, where a controller kill
// is a kill -9 of the leader (a standby takes over: `failovers`).
// Env: SLUICE_FAULT_SEED (default 20240601) picks the schedule and the workload;
// SLUICE_FAULT_SOAK_SECONDS=N keeps submitting and injecting for N seconds (soak mode,
// for runs outside CI); submissions pause while more than kMaxQueued jobs are unfinished,
// and the final wait lasts as long as the queue keeps draining.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "acct/pg_test_server.h"
#include "cluster_fixture.h"
#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {
namespace {

constexpr char kJobScript[] = R"(#!/bin/bash
M=marks.log
N=$SLURMD_NODENAME
exec 8>locks/job.$SLURM_JOB_ID
flock -n 8 || echo "OVERLAP $SLURM_JOB_ID $N" >> $M
G=none
if [ -n "$SLURM_JOB_GPUS" ]; then
  G=$CUDA_VISIBLE_DEVICES
  for g in ${CUDA_VISIBLE_DEVICES//,/ }; do
    exec {fd}>locks/gpu.$N.$g
    flock -n $fd || echo "OVERALLOC $SLURM_JOB_ID $N $g" >> $M
  done
fi
echo "S $SLURM_JOB_ID ${SLURM_RESTART_COUNT:-0} $N $$ $(date +%s%N) $G" >> $M
if [ "$2" = step ]; then
  err=$(@SRUN@ -n1 sleep $1 2>&1 >/dev/null) || echo "STEPFAIL $SLURM_JOB_ID $N ${err//$'\n'/ }" >> $M
else
  sleep $1
fi
echo "E $SLURM_JOB_ID ${SLURM_RESTART_COUNT:-0} $N $$ $(date +%s%N) $G" >> $M
)";

int64_t EnvInt(const char* name, int64_t def) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : def;
}

struct Run1 {  // one run of a job, from its markers
  std::string node;
  pid_t pid = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // 0: no end marker (killed)
  std::vector<std::string> gpus;
};

struct Marks {
  std::map<int64_t, std::map<std::string, Run1>> runs;  // job -> "restart pid" -> run
  int overlap_lines = 0;
  int overalloc_lines = 0;
  int step_failures = 0;  // srun steps that failed (reported, not an invariant)
};

Marks ParseMarks(const std::string& text, bool print_step_failures = false) {
  Marks m;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::string kind, restart, node, gpus;
    int64_t job = 0, ns = 0;
    pid_t pid = 0;
    ls >> kind >> job;
    if (kind == "OVERLAP") ++m.overlap_lines;
    if (kind == "OVERALLOC") ++m.overalloc_lines;
    if (kind == "STEPFAIL" && ++m.step_failures <= 3 && print_step_failures) {
      std::cerr << line << "\n";
    }
    if (kind != "S" && kind != "E") continue;
    if (!(ls >> restart >> node >> pid >> ns >> gpus)) continue;
    Run1& r = m.runs[job][restart + " " + std::to_string(pid)];
    r.node = node;
    r.pid = pid;
    (kind == "S" ? r.start_ns : r.end_ns) = ns;
    if (gpus != "none" && r.gpus.empty()) {
      std::stringstream gs(gpus);
      std::string g;
      while (std::getline(gs, g, ',')) r.gpus.push_back(g);
    }
  }
  return m;
}

// Counts pairs of closed intervals that overlap in each group.
int CountOverlaps(std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> groups) {
  int n = 0;
  for (auto& [key, v] : groups) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i].first < v[i - 1].second) {
        ++n;
        std::cerr << "overlap in " << key << "\n";
      }
    }
  }
  return n;
}

class FaultInjection : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.kill_wait_s = 1;
    o.slurmd_timeout_s = 10;  // restarted agents come back well within it; network cuts last longer
    o.isolated = ::geteuid() == 0;
    UseFaultBuilds(&o);
    return o;
  }
  int NodeIndex(const std::string& node) const {
    for (int i = 0; i < 4; ++i) {
      if (cluster_->NodeName(i) == node) return i;
    }
    return -1;
  }
  void RestartAgent(std::mt19937_64& rng, int i) {
    cluster_->KillAgent(i, SIGKILL);
    usleep(static_cast<useconds_t>(100 + rng() % 500) * 1000);
    ASSERT_TRUE(cluster_->StartAgent(i).ok());
  }

  // Live job runs from the markers: (job, run).
  std::vector<std::pair<int64_t, Run1>> LiveRuns() {
    Marks m = ParseMarks(ReadFile("marks.log"));
    std::vector<std::pair<int64_t, Run1>> live;
    for (const auto& [job, runs] : m.runs) {
      for (const auto& [key, r] : runs) {
        if (r.end_ns == 0 && r.start_ns > 0 && ::kill(r.pid, 0) == 0) live.push_back({job, r});
      }
    }
    return live;
  }

  // Arms a random agent to die after its next stepd start; if a launch came within 3 s,
  // restarts it and returns true.
  bool CrashAgentInLaunch(std::mt19937_64& rng) {
    int i = static_cast<int>(rng() % 4);
    std::string armed = fault_dir() + "/die-after-spawn." + cluster_->NodeName(i);
    std::ofstream(armed) << "armed\n";
    int64_t deadline = RealClock::MonotonicMs() + 3000;
    while (fs::exists(armed) && RealClock::MonotonicMs() < deadline) usleep(20'000);
    if (fs::exists(armed) && fs::remove(armed)) return false;  // no launch came: disarmed
    RestartAgent(rng, i);
    return true;
  }

  // Arms the controller to die at a point of its commit or scheduling pass (waits up to
  // 3 s for it to get there), then restarts it.
  bool CrashControllerAt(std::mt19937_64& rng) {
    const char* points[] = {"commit", "committed", "pass"};
    std::string armed = fault_dir() + "/ctld-die-at." + points[rng() % 3];
    std::ofstream(armed) << "armed\n";
    int64_t deadline = RealClock::MonotonicMs() + 3000;
    while (fs::exists(armed) && RealClock::MonotonicMs() < deadline) usleep(20'000);
    if (fs::exists(armed) && fs::remove(armed)) return false;  // not reached: disarmed
    usleep(static_cast<useconds_t>(100 + rng() % 400) * 1000);
    RestartDeadControllers();
    return true;
  }

  // Kills the (leading) controller with -9 and starts it again.
  virtual void KillController(std::mt19937_64& rng) {
    cluster_->KillController(SIGKILL);
    usleep(static_cast<useconds_t>(100 + rng() % 500) * 1000);
    ASSERT_TRUE(cluster_->StartController().ok());
  }
  // Starts each controller that is not running (one that died at an armed point).
  void RestartDeadControllers() {
    if (controllers_ == 1) {
      cluster_->KillController(SIGKILL);  // gone already; waits until it is
      EXPECT_TRUE(cluster_->StartController().ok());
      return;
    }
    for (int k = 0; k < controllers_; ++k) {
      if (cluster_->ControllerPid(k) == 0) EXPECT_TRUE(cluster_->StartControllerAt(k).ok());
    }
  }
  int controllers_ = 1;
  int failovers_ = 0;

  void RunFaults();

  // A slow disk: every controller commit stalls 200-800 ms, for 2-5 s.
  void SlowDisk(std::mt19937_64& rng) {
    std::string slow = fault_dir() + "/ctld-slow-commit";
    std::ofstream(slow) << 200 + rng() % 600 << "\n";
    usleep(static_cast<useconds_t>(2000 + rng() % 3000) * 1000);
    fs::remove(slow);
  }

  // Cancels a random running job and kill -9s its batch host's agent right away.
  bool CancelThenRestartAgent(std::mt19937_64& rng, std::set<int64_t>* cancelled) {
    auto live = LiveRuns();
    if (live.empty()) return false;
    auto [job, run] = live[rng() % live.size()];
    int i = NodeIndex(run.node);
    if (i < 0) return false;
    RunOptions opts;
    opts.timeout_ms = 10'000;
    if (Run({"scancel", std::to_string(job)}, opts).exit_code != 0) return false;
    cancelled->insert(job);
    RestartAgent(rng, i);
    return true;
  }

  // Takes a random node's link down for SlurmdTimeout + 1-3 s (RestoreNetwork() brings
  // it back once that has passed); one cut at a time.
  bool CutNetwork(std::mt19937_64& rng) {
    if (!cluster_->isolated() || cut_node_ >= 0) return false;
    cut_node_ = static_cast<int>(rng() % 4);
    EXPECT_TRUE(cluster_->SetNodeLink(cut_node_, false).ok());
    restore_at_ms_ = RealClock::MonotonicMs() + 11'000 + static_cast<int64_t>(rng() % 2'000);
    return true;
  }
  void RestoreNetwork(bool now) {
    if (cut_node_ < 0 || (!now && RealClock::MonotonicMs() < restore_at_ms_)) return;
    EXPECT_TRUE(cluster_->SetNodeLink(cut_node_, true).ok());
    cut_node_ = -1;
  }
  int cut_node_ = -1;
  int64_t restore_at_ms_ = 0;

  // Final states of `ids`: the controller's, else accounting's (purged after MinJobAge).
  std::map<int64_t, std::string> FinalStates(const std::vector<int64_t>& ids,
                                             std::map<int64_t, std::string> states) {
    std::vector<int64_t> missing;
    for (int64_t id : ids) {
      if (!states.count(id)) missing.push_back(id);
    }
    if (missing.empty()) return states;
    auto r = Run({"sacct", "-a", "-X", "-n", "-P", "-o", "JobIDRaw,State", "-S", "2000-01-01"});
    std::stringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
      size_t bar = line.find('|');
      if (bar == std::string::npos) continue;
      int64_t id = std::atoll(line.substr(0, bar).c_str());
      std::string st = line.substr(bar + 1);
      st = st.substr(0, st.find(' '));  // "CANCELLED by 0"
      if (!states.count(id)) states[id] = st;
    }
    return states;
  }

  // Kills the script process of a random running job (verified through its environment).
  bool KillRandomJob(std::mt19937_64& rng, std::set<int64_t>* killed) {
    auto live = LiveRuns();
    if (live.empty()) return false;
    auto [job, run] = live[rng() % live.size()];
    pid_t pid = run.pid;
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ");
    std::string all((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
    if (all.find(std::string("SLURM_JOB_ID=") + std::to_string(job) + '\0') == std::string::npos) {
      return false;  // gone meanwhile (pid reuse): never kill what is not ours
    }
    if (::kill(pid, SIGKILL) != 0) return false;
    killed->insert(job);
    return true;
  }
};

void FaultInjection::RunFaults() {
  const uint64_t seed = static_cast<uint64_t>(EnvInt("SLUICE_FAULT_SEED", 20240601));
  const int64_t soak_s = EnvInt("SLUICE_FAULT_SOAK_SECONDS", 0);
  const int kJobs = 200;
  std::string script = kJobScript;
  script.replace(script.find("@SRUN@"), 6, cluster_->BinPath("srun"));
  std::ofstream(work_dir() + "/job.sh") << script;
  fs::create_directories(work_dir() + "/locks");
  const int64_t t0 = RealClock::MonotonicMs();

  std::mutex mu;
  std::vector<int64_t> acked;
  std::atomic<bool> submitting{true};
  // Unfinished jobs (pending, running, completing), or -1 while the controller is away.
  auto unfinished_now = [&]() -> int {
    auto r = Run({"squeue", "-h", "-t", "PD,R,CG", "-o", "%i"});
    if (r.exit_code != 0) return -1;
    return static_cast<int>(std::count(r.out.begin(), r.out.end(), '\n'));
  };
  const int kMaxQueued = 48;  // what the 4 nodes finish in a few seconds, faults and all
  std::thread submitter([&] {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < kJobs || RealClock::MonotonicMs() - t0 < soak_s * 1000; ++i) {
      for (int wait = 0; i % 4 == 0 && wait < 120; ++wait) {  // at most 30 s per pause
        int n = unfinished_now();
        if (n >= 0 && n < kMaxQueued) break;
        usleep(250'000);
      }
      int shape = static_cast<int>(rng() % 20);
      std::vector<std::string> args = {"sbatch", "--parsable", "-o", "/dev/null", "-J", "fi"};
      if (shape < 2) {
        args.insert(args.end(), {"-N2", "-n2", "--gres=gpu:2"});
      } else if (shape < 3) {
        args.insert(args.end(), {"-N4", "-n4"});
      } else if (shape < 9) {
        args.insert(args.end(), {"-n", std::to_string(1 + rng() % 4),
                                 "--gres=gpu:" + std::to_string(1 + rng() % 4)});
      } else {
        args.insert(args.end(), {"-n", std::to_string(1 + rng() % 8)});
      }
      int tenths = rng() % 10 == 0 ? 30 : 2 + static_cast<int>(rng() % 10);
      args.insert(args.end(), {"job.sh", fmt::format("{}.{}", tenths / 10, tenths % 10)});
      if (rng() % 4 == 0) args.push_back("step");      // the work in an srun step
      for (int attempt = 0; attempt < 5; ++attempt) {  // the controller may be down
        RunOptions opts;
        opts.timeout_ms = 20'000;
        auto r = Run(args, opts);
        if (r.exit_code == 0) {
          std::lock_guard<std::mutex> lock(mu);
          acked.push_back(std::atoll(r.out.c_str()));
          break;
        }
        usleep(300'000);
      }
    }
    submitting = false;
  });

  // All acknowledged jobs terminal (or unknown: lost).
  auto all_done = [&](std::map<int64_t, std::string>* states) {
    auto r = Run({"squeue", "-h", "-t", "all", "-o", "%i %T"});
    states->clear();
    std::stringstream in(r.out);
    int64_t id;
    std::string st;
    while (in >> id >> st) (*states)[id] = st;
    if (r.exit_code != 0) return false;
    std::lock_guard<std::mutex> lock(mu);
    for (int64_t id : acked) {
      auto it = states->find(id);
      if (it != states->end() &&
          (it->second == "PENDING" || it->second == "RUNNING" || it->second == "COMPLETING")) {
        return false;
      }
    }
    return true;
  };

  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::set<int64_t> killed, cancelled;
  int faults = 0, ctld_kills = 0, agent_kills = 0, job_kills = 0, launch_kills = 0,
      cancel_kills = 0;
  int ctld_point_kills = 0, slow_disks = 0, net_cuts = 0;
  const int kMaxFaults = soak_s > 0 ? 1'000'000 : 40;
  std::map<int64_t, std::string> states;
  while (faults < kMaxFaults) {
    usleep(static_cast<useconds_t>(soak_s > 0 ? 200 + rng() % 800 : 500 + rng() % 1000) * 1000);
    RestoreNetwork(false);
    if (!submitting &&
        (all_done(&states) || RealClock::MonotonicMs() - t0 > 60'000 + soak_s * 1000)) {
      break;
    }
    int kind = static_cast<int>(rng() % 15);
    if (soak_s == 0 && faults == 2 && net_cuts == 0 && cluster_->isolated()) {
      kind = 14;  // the short run cuts a node once
    }
    if (controllers_ > 1 && (faults == 0 || faults == 4)) kind = 0;  // and kills the leader
    if (kind == 14) {
      if (!CutNetwork(rng)) continue;
      ++net_cuts;
    } else if (kind == 12) {
      if (!CrashControllerAt(rng)) continue;
      ++ctld_point_kills;
    } else if (kind == 13) {
      SlowDisk(rng);
      ++slow_disks;
    } else if (kind == 10) {
      if (!CrashAgentInLaunch(rng)) continue;
      ++launch_kills;
    } else if (kind == 11) {
      if (!CancelThenRestartAgent(rng, &cancelled)) continue;
      ++cancel_kills;
    } else if (kind < 3) {
      KillController(rng);
      ++ctld_kills;
    } else if (kind < 6) {
      RestartAgent(rng, static_cast<int>(rng() % 4));
      ++agent_kills;
    } else {
      if (!KillRandomJob(rng, &killed)) continue;
      ++job_kills;
    }
    ++faults;
  }
  RestoreNetwork(true);
  submitter.join();
  // Wait while the queue drains: give up only after 60 s without progress.
  int64_t deadline = RealClock::MonotonicMs() + 60'000;
  int last_left = -1;
  while (!all_done(&states) && RealClock::MonotonicMs() < deadline) {
    int left = unfinished_now();
    if (left >= 0 && (last_left < 0 || left < last_left)) {
      last_left = left;
      deadline = RealClock::MonotonicMs() + 60'000;
    }
    usleep(500'000);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    states = FinalStates(acked, std::move(states));
  }

  // Invariants.
  Marks m = ParseMarks(ReadFile("marks.log"), /*print_step_failures=*/true);
  int lost = 0, bad_state = 0, unfinished = 0;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> job_iv, gpu_iv;
  for (int64_t id : acked) {
    auto it = states.find(id);
    if (it == states.end()) {
      ++lost;
      std::cerr << "job " << id << " lost\n";
      continue;
    }
    const std::string& st = it->second;
    bool has_end = false;
    for (const auto& [key, r] : m.runs[id]) {
      if (r.end_ns == 0) continue;
      has_end = true;
      job_iv[std::to_string(id)].push_back({r.start_ns, r.end_ns});
      for (const auto& g : r.gpus) gpu_iv[r.node + " gpu " + g].push_back({r.start_ns, r.end_ns});
    }
    bool ok = st == "COMPLETED" || (killed.count(id) && st == "FAILED") ||
              (cancelled.count(id) && st == "CANCELLED");
    if (st == "COMPLETED" && !has_end) ok = false;
    if (st == "PENDING" || st == "RUNNING" || st == "COMPLETING") ++unfinished;
    if (!ok) {
      ++bad_state;
      std::cerr << "job " << id << " ended " << st << (killed.count(id) ? " (killed)" : "")
                << (has_end ? "" : " without an end marker") << "\n";
    }
  }
  int overlaps = m.overlap_lines + CountOverlaps(job_iv);
  int overalloc = m.overalloc_lines + CountOverlaps(gpu_iv);
  std::cout << fmt::format(
                   "fault-injection: seed={} faults={} jobs={} lost={} overlaps={} overalloc={} "
                   "failovers={}",
                   seed, faults, acked.size(), lost, overlaps, overalloc, failovers_)
            << fmt::format(
                   " (controller={} agent={} job={} launch={} cancel={} commit/pass={} killed; "
                   "slowdisk={} netcut={} badstate={} unfinished={} stepfail={} in {} s)",
                   ctld_kills, agent_kills, job_kills, launch_kills, cancel_kills, ctld_point_kills,
                   slow_disks, net_cuts, bad_state, unfinished, m.step_failures,
                   (RealClock::MonotonicMs() - t0) / 1000)
            << std::endl;
  EXPECT_GE(static_cast<int>(acked.size()), kJobs * 9 / 10);
  EXPECT_GT(ctld_kills, 0);
  EXPECT_GT(agent_kills, 0);
  if (cluster_->isolated()) EXPECT_GT(net_cuts, 0);
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(overalloc, 0);
  EXPECT_EQ(unfinished, 0);
  EXPECT_EQ(bad_state, 0);
  if (controllers_ > 1) EXPECT_GT(failovers_, 0);
}

TEST_F(FaultInjection, InvariantsHoldUnderControllerAgentAndJobKills) { RunFaults(); }

// The same with two controllers on PostgreSQL (docs/high-availability.md): the controller
// faults kill the leader, a standby takes over, and the killed one comes back standing by.
class FaultInjectionHa : public FaultInjection {
 protected:
  void SetUp() override {
    if (Status st = pg_.Start(); !st.ok()) GTEST_SKIP() << "no PostgreSQL server: " << st.message();
    controllers_ = 2;
    FaultInjection::SetUp();
  }
  void TearDown() override {
    FaultInjection::TearDown();
    pg_.Stop();
  }
  LocalClusterOptions Options() override {
    LocalClusterOptions o = FaultInjection::Options();
    o.isolated = false;  // several controllers run on loopback addresses
    o.controllers = 2;
    o.extra_config_lines = pg_.StateStorageLines();
    o.extra_config_lines.push_back("SlurmctldTimeout=2");
    return o;
  }
  void KillController(std::mt19937_64& rng) override {
    RestartDeadControllers();
    const int leader = cluster_->LeadingController();
    ASSERT_GE(leader, 0) << "no controller holds a live lease";
    cluster_->KillControllerAt(leader, SIGKILL);
    ++failovers_;
    usleep(static_cast<useconds_t>(100 + rng() % 500) * 1000);
    ASSERT_TRUE(cluster_->StartControllerAt(leader).ok());  // it stands by
  }
  acct::PgTestServer pg_;
};

TEST_F(FaultInjectionHa, InvariantsHoldWhenTheLeaderIsKilledAndAStandbyTakesOver) { RunFaults(); }

}  // namespace
}  // namespace sluice::testing
