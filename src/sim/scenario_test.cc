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

}  // namespace
}  // namespace sluice::sim
