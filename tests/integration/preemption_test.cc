// Preemption on a real controller + 4 agents: two partitions over the same nodes
// (PriorityTier 1 and 10, PreemptType=preempt/partition_prio). REQUEUE with GraceTime=2:
// the needed low job gets SIGTERM (its trap writes "checkpointed"), is killed after the
// grace time and requeued; the high job runs only once the victim is gone; then the low
// job runs again with SLURM_RESTART_COUNT=1. CANCEL: the victim ends PREEMPTED, 0:15.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Preemption : public ClusterTest {
 protected:
  virtual std::string LowMode() const { return "REQUEUE"; }
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.cpus_per_node = 2;
    o.gpus_per_node = 0;
    o.kill_wait_s = 2;
    o.extra_config_lines = {
        "PreemptType=preempt/partition_prio", "PreemptMode=REQUEUE",
        "PartitionName=low Nodes=ALL PriorityTier=1 PreemptMode=" + LowMode() + " GraceTime=2",
        "PartitionName=high Nodes=ALL PriorityTier=10"};
    return o;
  }

  bool WaitFileHas(const std::string& path, const std::string& text, int timeout_ms = 30'000) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
      if (ReadFile(path).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Four 2-CPU low jobs: one per node. Run 0 records its pid and loops until killed,
  // trapping TERM ("checkpointed"); later runs say so and finish.
  std::vector<int64_t> FillLow() {
    std::vector<int64_t> ids;
    for (int i = 0; i < 4; ++i) {
      ids.push_back(Submit({"-p", "low", "-c", "2", "-o", "low-%j.out", "--wrap",
                            "echo run ${SLURM_RESTART_COUNT:-0}; "
                            "[ ${SLURM_RESTART_COUNT:-0} -ge 1 ] && exit 0; "
                            "echo $$ > pid-$SLURM_JOB_ID; "
                            "trap 'echo checkpointed > ck-$SLURM_JOB_ID' TERM; "
                            "while true; do sleep 0.2; done"}));
    }
    for (int64_t id : ids) {
      EXPECT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
      EXPECT_TRUE(WaitFileHas("pid-" + std::to_string(id), "\n"));
    }
    return ids;
  }
};

TEST_F(Preemption, RequeueAfterGraceThenHighRunsThenLowRunsAgain) {
  std::vector<int64_t> low = FillLow();
  // The high job checks that no victim process is still alive when it starts.
  int64_t high = Submit({"-p", "high", "-c", "2", "-o", "high.out", "--wrap",
                         "for f in pid-*; do kill -0 $(cat $f) 2>/dev/null && echo alive $f; done; "
                         "echo high ran"});
  EXPECT_EQ(WaitDone(high, 40'000), "COMPLETED");
  std::string out = ReadFile("high.out");
  EXPECT_NE(out.find("high ran"), std::string::npos) << out;
  int64_t victim = 0;
  for (int64_t id : low) {
    if (std::filesystem::exists(work_dir() + "/ck-" + std::to_string(id))) {
      EXPECT_EQ(victim, 0) << "more than one victim";
      victim = id;
    }
  }
  ASSERT_NE(victim, 0) << "no low job got the preemption signal";
  EXPECT_EQ(ReadFile("ck-" + std::to_string(victim)), "checkpointed\n");
  EXPECT_EQ(out.find("alive pid-" + std::to_string(victim)), std::string::npos)
      << "high started while its victim still ran: " << out;
  // The victim runs again (restart 1) and finishes; the others were left alone.
  EXPECT_EQ(WaitDone(victim, 30'000), "COMPLETED");
  // (bash may print "Terminated" for the sleep the SIGTERM killed in between.)
  std::string low_out = ReadFile("low-" + std::to_string(victim) + ".out");
  EXPECT_EQ(low_out.rfind("run 0\n", 0), 0u) << low_out;
  EXPECT_EQ(low_out.substr(low_out.size() - std::min<size_t>(6, low_out.size())), "run 1\n")
      << low_out;
  EXPECT_EQ(low_out.find("run 2"), std::string::npos) << low_out;
  auto show = Run({"scontrol", "show", "job", std::to_string(victim)});
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  for (int64_t id : low) {
    if (id == victim) continue;
    EXPECT_EQ(State(id), "RUNNING");
    EXPECT_FALSE(std::filesystem::exists(work_dir() + "/ck-" + std::to_string(id)));
    Run({"scancel", std::to_string(id)});
  }
  auto part = Run({"scontrol", "show", "partition", "low"});
  EXPECT_NE(part.out.find("GraceTime=2 "), std::string::npos) << part.out;
  EXPECT_NE(part.out.find("PreemptMode=REQUEUE"), std::string::npos) << part.out;
  auto config = Run({"scontrol", "show", "config"});
  EXPECT_NE(config.out.find("preempt/partition_prio"), std::string::npos) << config.out;
}

class PreemptionCancel : public Preemption {
 protected:
  std::string LowMode() const override { return "CANCEL"; }
};

TEST_F(PreemptionCancel, VictimEndsPreempted) {
  std::vector<int64_t> low = FillLow();
  int64_t high = Submit({"-p", "high", "-c", "2", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(WaitDone(high, 40'000), "COMPLETED");
  int64_t victim = 0;
  for (int64_t id : low) {
    if (State(id) == "PREEMPTED") victim = id;
  }
  ASSERT_NE(victim, 0);
  EXPECT_TRUE(WaitFileHas("ck-" + std::to_string(victim), "checkpointed"));
  auto show = Run({"scontrol", "show", "job", std::to_string(victim)});
  EXPECT_NE(show.out.find("JobState=PREEMPTED"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("ExitCode=0:15"), std::string::npos) << show.out;
  auto sq = Run({"squeue", "-h", "-t", "PR", "-o", "%i %t"});
  EXPECT_EQ(sq.out, std::to_string(victim) + " PR\n");
  for (int64_t id : low) {
    if (id != victim) Run({"scancel", std::to_string(id)});
  }
}

}  // namespace
}  // namespace sluice::testing
