// Randomised properties of every simulator policy on small random workloads (fixed seeds):
// the replay accepts each plan (no resource is handed out twice; the simulator checks),
// every job runs, never before its submit, for exactly its run time (predictions are for
// planning only), and replays are deterministic. With exact limits, planning with the
// exact run times changes nothing.
#include <gtest/gtest.h>

#include <random>

#include "common/clock.h"
#include "sim/policy.h"
#include "sim/simulator.h"

namespace sluice::sim {
namespace {

constexpr int64_t kEpoch = 1'000'000'000;

struct Case {
  sched::ClusterSnapshot cluster;
  std::vector<SimJob> jobs;
};

Case RandomCase(std::mt19937& rng, bool exact_limits) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case c;
  const int nodes = pick(1, 4);
  for (int i = 1; i <= nodes; ++i) {
    sched::Node node;
    node.name = "n" + std::to_string(i);
    node.cpus = 4;
    c.cluster.nodes.push_back(node);
  }
  const int count = pick(5, 25);
  std::vector<int64_t> submits;
  for (int i = 0; i < count; ++i) submits.push_back(pick(0, 2000));
  std::sort(submits.begin(), submits.end());
  for (int i = 0; i < count; ++i) {
    SimJob job;
    job.id = std::to_string(i + 1);
    job.submit_s = submits[i];
    job.run_s = pick(1, 600);
    job.request.job_id = i + 1;
    job.request.submit_time = submits[i];
    job.request.time_limit_s = exact_limits ? job.run_s : job.run_s * pick(1, 4);
    job.request.num_nodes = pick(1, nodes);
    job.request.cpus_per_node = pick(1, 4);
    job.cpus = int64_t{job.request.num_nodes} * job.request.cpus_per_node;
    job.traits.user = "u" + std::to_string(pick(1, 3));
    c.jobs.push_back(job);
  }
  return c;
}

Expected<SimResult> Replay(const Case& c, const std::string& policy) {
  auto spec = ParsePolicySpec(policy);
  if (!spec.ok()) return spec.status();
  sched::SchedulerConfig knobs;
  knobs.bf_resolution_s = 1;
  knobs.bf_order.starvation_factor = 3;
  knobs.bf_order.origin = kEpoch;
  auto scheduler = MakeSpecScheduler(*spec, knobs);
  ManualClock clock(kEpoch);
  return Simulate(c.cluster, c.jobs, scheduler.get(), &clock, {}, PreemptMode::kCancel,
                  spec->prediction);
}

TEST(PolicyPropertyTest, EveryPolicyRunsEveryJobForItsRunTime) {
  std::mt19937 rng(20);
  const char* policies[] = {"fcfs",
                            "easy",
                            "conservative",
                            "easy-sjbf",
                            "easy-pred",
                            "easy-pred-sjbf",
                            "easy-clairvoyant-sjbf",
                            "wfp3",
                            "unicep",
                            "f1",
                            "gpu-sgtf",
                            "conservative-pred-f1",
                            "unicep:easy",
                            "wfp3:easy-pred-sjbf",
                            "sjbf:conservative"};
  for (int round = 0; round < 60; ++round) {
    const Case c = RandomCase(rng, false);
    for (const char* policy : policies) {
      auto result = Replay(c, policy);
      ASSERT_TRUE(result.ok()) << policy << " round " << round << ": " << result.status().message();
      for (size_t i = 0; i < c.jobs.size(); ++i) {
        const JobOutcome& o = result->jobs[i];
        ASSERT_FALSE(o.rejected) << policy;
        ASSERT_GE(o.start_s, c.jobs[i].submit_s) << policy << " round " << round;
        ASSERT_EQ(o.end_s - o.start_s, c.jobs[i].run_s) << policy;
        ASSERT_LE(o.predicted_s, c.jobs[i].request.time_limit_s) << policy;
      }
      auto again = Replay(c, policy);
      ASSERT_TRUE(again.ok());
      for (size_t i = 0; i < c.jobs.size(); ++i) {
        ASSERT_EQ(again->jobs[i].start_s, result->jobs[i].start_s) << policy;
      }
    }
  }
}

TEST(PolicyPropertyTest, ExactRunTimesChangeNothingWhenLimitsAreExact) {
  std::mt19937 rng(2017);
  for (int round = 0; round < 60; ++round) {
    const Case c = RandomCase(rng, true);
    for (auto [plain, clairvoyant] :
         {std::pair{"easy", "easy-clairvoyant"}, std::pair{"easy-sjbf", "easy-clairvoyant-sjbf"}}) {
      auto a = Replay(c, plain);
      auto b = Replay(c, clairvoyant);
      ASSERT_TRUE(a.ok() && b.ok());
      for (size_t i = 0; i < c.jobs.size(); ++i) {
        ASSERT_EQ(a->jobs[i].start_s, b->jobs[i].start_s) << plain << " round " << round;
      }
    }
  }
}

}  // namespace
}  // namespace sluice::sim
