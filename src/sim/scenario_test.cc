// Runs every scenario file in src/sim/scenarios under each policy it lists (hand-computed
// start times and metrics; see scenario.h for the format), and tests the format's errors.
#include "sim/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace sluice::sim {
namespace {

using ::testing::HasSubstr;

std::vector<std::filesystem::path> ScenarioFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(SLUICE_SIM_SCENARIO_DIR)) {
    if (entry.path().extension() == ".scn") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

TEST(Scenarios, AllHoldUnderTheirPolicies) {
  const auto files = ScenarioFiles();
  ASSERT_GE(files.size(), 5u) << "scenario files missing from " << SLUICE_SIM_SCENARIO_DIR;
  int runs = 0;
  for (const auto& path : files) {
    auto scenario = ParseScenario(ReadAll(path), path.filename().string());
    ASSERT_TRUE(scenario.ok()) << scenario.status().message();
    for (Policy policy : scenario->policies) {
      auto problems = RunScenario(*scenario, policy);
      ASSERT_TRUE(problems.ok()) << path << ": " << problems.status().message();
      for (const std::string& problem : *problems) ADD_FAILURE() << problem;
      ++runs;
    }
    for (const PolicySpec& spec : scenario->specs) {
      auto problems = RunScenario(*scenario, spec);
      ASSERT_TRUE(problems.ok()) << path << ": " << problems.status().message();
      for (const std::string& problem : *problems) ADD_FAILURE() << problem;
      ++runs;
    }
  }
  EXPECT_GT(runs, 0);
}

TEST(Scenarios, EveryPolicyHasScenarios) {
  std::set<Policy> covered;
  for (const auto& path : ScenarioFiles()) {
    auto scenario = ParseScenario(ReadAll(path), path.filename().string());
    ASSERT_TRUE(scenario.ok()) << scenario.status().message();
    covered.insert(scenario->policies.begin(), scenario->policies.end());
  }
  EXPECT_TRUE(covered.count(Policy::kFifo));
  EXPECT_TRUE(covered.count(Policy::kEasy));
  EXPECT_TRUE(covered.count(Policy::kConservative));
}

TEST(Scenarios, EveryNewPolicyHasScenarios) {
  std::set<std::string> covered;
  for (const auto& path : ScenarioFiles()) {
    auto scenario = ParseScenario(ReadAll(path), path.filename().string());
    ASSERT_TRUE(scenario.ok()) << scenario.status().message();
    for (const PolicySpec& spec : scenario->specs) covered.insert(spec.name);
  }
  for (const char* name : {"easy-sjbf", "easy-pred", "easy-pred-sjbf", "easy-clairvoyant-sjbf",
                           "wfp3", "unicep", "f1", "gpu-sgtf"}) {
    EXPECT_TRUE(covered.count(name)) << name;
  }
}

TEST(Scenarios, MismatchesAreReported) {
  auto scenario = ParseScenario(
      "policy fcfs\nnodes count=1 cpus=2\n"
      "job id=a submit=0 run=10 cpus=2 start=0\n"
      "job id=b submit=0 run=10 cpus=2 start=5   # really 10\n"
      "expect makespan_s=20 mean_wait_s=1.000\n",
      "wrong.scn");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  auto problems = RunScenario(*scenario, Policy::kFifo);
  ASSERT_TRUE(problems.ok());
  EXPECT_THAT(*problems,
              ::testing::ElementsAre("wrong.scn [fcfs]: job b started 10, expected 5",
                                     "wrong.scn [fcfs]: mean_wait_s = 5.000, expected 1.000"));
}

TEST(Scenarios, FormatErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"policy fcfs\nnodes count=1 cpus=2\njob id=a start=0\nfrobnicate\n",
       "s.scn:4: unknown directive 'frobnicate'"},
      {"policy lottery\n", "s.scn:1: unknown policy 'lottery'"},
      {"policy fcfs\nnodes count=x cpus=2\n", "s.scn:2: count=x is not an integer >= 1"},
      {"policy fcfs\nnodes count=1 cpus=2 color=red\n", "s.scn:2: unknown key 'color'"},
      {"policy fcfs\nnodes count=1\njob id=a run=5\n", "s.scn:3: job needs start="},
      {"policy fcfs\nnodes count=1\njob run=5 start=0\n", "s.scn:3: job needs id="},
      {"policy fcfs\nnodes count=1\njob id=a start=0 run=0\n",
       "s.scn:3: run=0 is not an integer >= 1"},
      {"policy fcfs\nnodes count=1\njob id=a start=0\nexpect speed=3\n",
       "s.scn:4: unknown key 'speed'"},
      {"policy fcfs\nnodes count=1\njob id=a start=0 nodes\n",
       "s.scn:3: expected key=value, got 'nodes'"},
      {"nodes count=1\njob id=a start=0\n", "s.scn:2: no policy line"},
      {"policy fcfs\njob id=a start=0\n", "s.scn:2: no nodes"},
  };
  for (const Case& c : cases) {
    auto scenario = ParseScenario(c.text, "s.scn");
    ASSERT_FALSE(scenario.ok()) << c.text;
    EXPECT_THAT(scenario.status().message(), HasSubstr(c.error)) << c.text;
  }
}

TEST(Scenarios, PriorityDirectivesAndTheirErrors) {
  auto scenario = ParseScenario(
      "policy fcfs\npriority weight_qos=10 weight_partition=5 decay_half_life=60\n"
      "assoc account=a shares=2\nassoc user=u account=a\n"
      "partition name=p tier=3 job_factor=4\nqos name=q priority=7\nnodes count=1\n"
      "job id=j start=0 user=u partition=p qos=q nice=-5\n",
      "p.scn");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  const SimPriority& p = scenario->priority;
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.weights.qos, 10);
  EXPECT_EQ(p.decay_half_life_s, 60);
  EXPECT_EQ(p.max_partition_job_factor, 4);
  EXPECT_EQ(p.max_qos_priority, 7);
  ASSERT_EQ(p.assocs.size(), 2u);
  EXPECT_EQ(p.assocs[0].shares, 2);
  const SimJob& job = scenario->workload.jobs[0];
  EXPECT_EQ(job.traits.account, "a");  // the user's default account
  EXPECT_EQ(job.traits.partition_job_factor, 4);
  EXPECT_EQ(job.request.priority_tier, 3);
  EXPECT_EQ(job.traits.qos_priority, 7);
  EXPECT_EQ(job.traits.nice, -5);

  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"policy fcfs\nnodes count=1\njob id=a start=0 partition=x\n",
       "s.scn:3: unknown partition 'x'"},
      {"policy fcfs\nnodes count=1\njob id=a start=0 qos=x\n", "s.scn:3: unknown qos 'x'"},
      {"policy fcfs\nnodes count=1\njob id=a start=0 account=x\n", "s.scn:3: unknown account 'x'"},
      {"policy fcfs\nassoc account=a parent=nope\n", "s.scn:2: unknown account 'nope'"},
      {"policy fcfs\nassoc account=a\nassoc account=a\n", "s.scn:3: account 'a' declared twice"},
      {"policy fcfs\nassoc user=u\n", "s.scn:2: assoc needs account="},
      {"policy fcfs\npriority weight_age=-1\n", "s.scn:2: weight_age=-1 is not an integer >= 0"},
      {"policy fcfs\npriority speed=1\n", "s.scn:2: unknown key 'speed'"},
      {"policy fcfs\npartition tier=1\n", "s.scn:2: partition needs name="},
  };
  for (const Case& c : cases) {
    auto bad = ParseScenario(c.text, "s.scn");
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_THAT(bad.status().message(), HasSubstr(c.error)) << c.text;
  }
}

TEST(Scenarios, SchedulingInputDirectivesAndTheirErrors) {
  auto scenario = ParseScenario(
      "policy easy\nnodes count=3 cpus=2\nswitch name=top\nswitch name=s1 parent=top nodes=n1,n2\n"
      "reservation name=r start=10 end=20 nodes=n3\nassoc account=a\nassoc user=u account=a\n"
      "qos name=lo\nqos name=hi preempts=lo preempt_mode=requeue\n"
      "preempt type=qos mode=cancel exempt=30\n"
      "limit user=u max_jobs=2\nlimit account=a grp_tres=cpu=4\nlimit qos=lo max_jobs_per_user=1\n"
      "job id=x start=0 array=2 throttle=1 user=u qos=lo reservation=r switches=1\n"
      "job id=y start=0 afterok=x afterany=x_1\n",
      "p.scn");
  ASSERT_TRUE(scenario.ok()) << scenario.status().message();
  const sched::ClusterSnapshot& c = scenario->workload.cluster;
  ASSERT_EQ(c.switches.size(), 2u);
  EXPECT_EQ(c.switches[1].parent, 0);
  EXPECT_EQ(c.nodes[1].leaf_switch, 1);
  EXPECT_EQ(c.nodes[2].leaf_switch, -1);
  ASSERT_EQ(c.reservations.size(), 1u);
  EXPECT_EQ(c.reservations[0].nodes, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(c.preempt.type, PreemptType::kQos);
  EXPECT_EQ(c.preempt.exempt_s, 30);
  EXPECT_EQ(c.preempt.rules.at("hi").preempts, (std::set<std::string>{"lo"}));
  EXPECT_EQ(c.preempt.rules.at("hi").mode, PreemptMode::kRequeue);
  EXPECT_EQ(scenario->preempt_mode, PreemptMode::kCancel);
  const auto& jobs = scenario->workload.jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].id, "x_0");
  EXPECT_EQ(jobs[1].array_job_id, jobs[0].request.job_id);
  EXPECT_EQ(jobs[1].array_throttle, 1);
  EXPECT_EQ(jobs[0].request.reservation, "r");
  EXPECT_EQ(jobs[2].after_ok, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(jobs[2].after_any, (std::vector<size_t>{1}));
  // x's tasks count against u's association, account a and root's chain, QOS lo and
  // (lo, u): three scopes limit something (u, a, lo per user); y (no user, no QOS) none.
  EXPECT_EQ(c.limits.scopes.size(), 3u);
  EXPECT_EQ(c.limits.job_scopes.at(jobs[0].request.job_id).size(), 3u);
  EXPECT_EQ(c.limits.job_scopes.count(jobs[2].request.job_id), 0u);

  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"policy fcfs\nnodes count=1\nswitch name=s nodes=n9\n", "s.scn:3: unknown node 'n9'"},
      {"policy fcfs\nswitch name=s parent=p\n", "s.scn:2: unknown switch 'p'"},
      {"policy fcfs\nnodes count=1\nreservation name=r start=5 end=5 nodes=n1\n",
       "s.scn:3: end=5 is not an integer >= 6"},
      {"policy fcfs\nnodes count=1\njob id=a start=0 reservation=nope\n",
       "s.scn:3: unknown reservation 'nope'"},
      {"policy fcfs\nlimit max_jobs=1\n", "s.scn:2: limit needs user="},
      {"policy fcfs\nlimit account=a grp_jobs=1\n", "s.scn:2: unknown account 'a'"},
      {"policy fcfs\nlimit user=u max_jobs_per_user=1\n",
       "s.scn:2: max_jobs_per_user is not a limit of this scope"},
      {"policy fcfs\nlimit user=u grp_tres=gpu=x\n", "s.scn:2: "},
      {"policy fcfs\npreempt type=suspend\n", "s.scn:2: "},
      {"policy fcfs\nqos name=a preempts=b\n", "s.scn:2: unknown qos 'b'"},
      {"policy fcfs\nnodes count=1\njob id=a start=0,1 array=3\n",
       "s.scn:3: start= has 2 values for 3 tasks"},
      {"policy fcfs\nnodes count=1\njob id=a start=0 throttle=2\n",
       "s.scn:3: throttle= needs array="},
      {"policy fcfs\nnodes count=1\njob id=a start=0 afterok=b\n",
       "s.scn: dependency on unknown job 'b'"},
  };
  for (const Case& c : cases) {
    auto bad = ParseScenario(c.text, "s.scn");
    ASSERT_FALSE(bad.ok()) << c.text;
    EXPECT_THAT(bad.status().message(), HasSubstr(c.error)) << c.text;
  }
}

}  // namespace
}  // namespace sluice::sim
