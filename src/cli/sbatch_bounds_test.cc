// sbatch refuses hostile sizes itself, at once and without contacting the controller
// (issue 22: `--array=5-999399999` took 45 s and 8 GB before it was refused).
#include <gtest/gtest.h>

#include <chrono>

#include "cli/cli_test_util.h"
#include "cli/sbatch.h"
#include "common/request_bounds.h"

namespace sluice {
namespace {

class SbatchBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t.api.submit_reply.set_job_id(11);
    t.env.environ = {{"HOME", "/home/alice"}, {"PATH", "/usr/bin"}};
  }
  int Run(std::vector<std::string> args) { return RunSbatch(args, t.env); }
  TestCli t;
};

TEST_F(SbatchBoundsTest, HugeArrayIsRefusedAtOnceInSlurmsWords) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Run({"--array=5-999399999", "--wrap", "true"}), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(t.err.str(),
            "sbatch: error: Batch job submission failed: Invalid job array specification\n");
  EXPECT_TRUE(t.api.submits.empty());
}

TEST_F(SbatchBoundsTest, HugeArrayInADirectiveToo) {
  t.SetStdin("#!/bin/sh\n#SBATCH --array=0-4000001\ntrue\n");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            "sbatch: error: Batch job submission failed: Invalid job array specification\n");
  EXPECT_TRUE(t.api.submits.empty());
}

TEST_F(SbatchBoundsTest, ArrayWithinSlurmsCeilingGoesToTheController) {
  // The configured MaxArraySize is the controller's to enforce.
  EXPECT_EQ(Run({"--array=0-4000000", "--wrap", "true"}), 0);
  ASSERT_EQ(t.api.submits.size(), 1u);
  EXPECT_EQ(t.api.submits[0].spec().array_spec(), "0-4000000");
}

TEST_F(SbatchBoundsTest, OversizeScriptIsRefusedWithoutReadingOn) {
  t.SetStdin("#!/bin/sh\n" + std::string(kMaxScriptBytes, '#'));
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            std::string("sbatch: error: Batch job submission failed: ") + kMsgTooLong + "\n");
  EXPECT_TRUE(t.api.submits.empty());
  t.err.str("");
  t.in.clear();  // the first run read to EOF
  t.SetStdin("#!/bin/sh\n" + std::string(kMaxScriptBytes - 10, '#'));
  EXPECT_EQ(Run({}), 0) << t.err.str();
}

TEST_F(SbatchBoundsTest, OversizeEnvironmentOrArgumentsAreRefused) {
  t.env.environ["BIG"] = std::string(kMaxEnvBytes, 'x');
  EXPECT_EQ(Run({"--wrap", "true"}), 1);
  EXPECT_EQ(t.err.str(),
            std::string("sbatch: error: Batch job submission failed: ") + kMsgTooLong + "\n");
  t.env.environ.erase("BIG");
  for (size_t i = 0; i <= kMaxEnvEntries; ++i) t.env.environ["V" + std::to_string(i)] = "1";
  t.err.str("");
  EXPECT_EQ(Run({"--wrap", "true"}), 1);
  EXPECT_EQ(Run({"--export=NONE", "--wrap", "true"}), 0);
  EXPECT_EQ(t.api.submits.size(), 1u);
}

}  // namespace
}  // namespace sluice
