#include "noded/health_check.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/config.h"

namespace sluice {
namespace {

class HealthCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-hc-XXXXXX";
    dir_ = mkdtemp(tmpl);
    program_ = dir_ + "/hc.sh";
    std::ofstream(program_) << "#!/bin/sh\necho $SLURMD_NODENAME >> " << dir_ << "/runs\n[ -e "
                            << dir_ << "/sick ] && { cat " << dir_ << "/sick; exit 1; }\nexit 0\n";
    std::filesystem::permissions(program_, std::filesystem::perms(0755));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  HealthCheckOptions Opts() {
    HealthCheckOptions o;
    o.program = program_;
    o.node_name = "node07";
    o.cpus = 4;
    return o;
  }
  std::string dir_, program_;
};

TEST_F(HealthCheckTest, SeqFailureReasonAndResolvedReason) {
  HealthCheck hc(Opts());
  EXPECT_EQ(hc.Current().seq(), 0);
  hc.RunNow();
  EXPECT_EQ(hc.Current().seq(), 1);
  EXPECT_FALSE(hc.Current().failed());
  EXPECT_EQ(hc.Current().reason(), "");
  std::ofstream(dir_ + "/sick") << "NVLink down\n";
  hc.RunNow();
  EXPECT_TRUE(hc.Current().failed());
  EXPECT_EQ(hc.Current().reason(), "NVLink down");
  std::filesystem::remove(dir_ + "/sick");
  hc.RunNow();
  EXPECT_EQ(hc.Current().seq(), 3);
  EXPECT_FALSE(hc.Current().failed());
  EXPECT_EQ(hc.Current().reason(), "NVLink down");  // the drain it may lift
  std::ifstream runs(dir_ + "/runs");
  std::string line;
  std::getline(runs, line);
  EXPECT_EQ(line, "node07");
}

TEST_F(HealthCheckTest, NodeStateSelectsWhenThePeriodicCheckRuns) {
  HealthCheckOptions o = Opts();
  o.node_state = Config::kHealthIdle;
  HealthCheck idle(o);
  EXPECT_TRUE(idle.StateMatches(0));
  EXPECT_FALSE(idle.StateMatches(2));
  EXPECT_FALSE(idle.StateMatches(4));
  o.node_state = Config::kHealthAlloc | Config::kHealthMixed;
  HealthCheck busy(o);
  EXPECT_FALSE(busy.StateMatches(0));
  EXPECT_TRUE(busy.StateMatches(2));
  EXPECT_TRUE(busy.StateMatches(4));
  o.node_state = Config::kHealthAny;
  HealthCheck any(o);
  EXPECT_TRUE(any.StateMatches(0) && any.StateMatches(3) && any.StateMatches(4));
}

TEST_F(HealthCheckTest, PeriodicRunsCallBack) {
  HealthCheckOptions o = Opts();
  o.interval_s = 1;
  HealthCheck hc(o);
  std::atomic<int> calls{0};
  hc.Start([&] { ++calls; });
  for (int i = 0; i < 100 && calls < 1; ++i) usleep(50'000);
  hc.Stop();
  EXPECT_GE(calls.load(), 1);
  EXPECT_GE(hc.Current().seq(), 1);
}

}  // namespace
}  // namespace sluice
