#include "cli/time_spec.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <optional>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/sbatch.h"

namespace sluice {
namespace {

class BeginTime : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    saved_tz_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    saved_tz_ ? setenv("TZ", saved_tz_->c_str(), 1) : unsetenv("TZ");
    tzset();
  }
  std::optional<std::string> saved_tz_;
  // 2026-11-30T14:00:00Z
  static constexpr int64_t kNow = 1'796'047'200;
  static constexpr int64_t kToday = kNow - 14 * 3600;
};

TEST_F(BeginTime, SlurmsTimeSpecifications) {
  EXPECT_EQ(*ParseBeginTime("now", kNow), kNow);
  EXPECT_EQ(*ParseBeginTime("now+90", kNow), kNow + 90);
  EXPECT_EQ(*ParseBeginTime("now+2hours", kNow), kNow + 7200);
  EXPECT_EQ(*ParseBeginTime("16:00", kNow), kToday + 16 * 3600);
  EXPECT_EQ(*ParseBeginTime("10:30:15", kNow),
            kToday + 86400 + 10 * 3600 + 30 * 60 + 15);  // past: tomorrow
  EXPECT_EQ(*ParseBeginTime("2026-12-24T18:00", kNow), kToday + 24 * 86400 + 18 * 3600);
  EXPECT_EQ(*ParseBeginTime("2026-12-01", kNow), kToday + 86400);
  EXPECT_EQ(*ParseBeginTime("midnight", kNow), kToday + 86400);
  EXPECT_EQ(*ParseBeginTime("noon", kNow), kToday + 86400 + 12 * 3600);  // 12:00 has passed
  EXPECT_EQ(*ParseBeginTime("teatime", kNow), kToday + 16 * 3600);
  EXPECT_EQ(*ParseBeginTime("fika", kNow), kToday + 15 * 3600);
  EXPECT_EQ(*ParseBeginTime("elevenses", kNow), kToday + 86400 + 11 * 3600);
  EXPECT_EQ(*ParseBeginTime("tomorrow", kNow), kToday + 86400);
  EXPECT_EQ(*ParseBeginTime("TeaTime", kNow), kToday + 16 * 3600);
  // torchx lists jobs with sacct -S1970-01-01-00:00:01: '-' between date and time.
  EXPECT_EQ(*ParseSacctTime("1970-01-01-00:00:01", kNow), 1);
  EXPECT_EQ(*ParseSacctTime("2026-12-24-18:00", kNow), kToday + 24 * 86400 + 18 * 3600);
  EXPECT_FALSE(ParseSacctTime("2026-12-24-", kNow).ok());
  for (const char* bad : {"", "soon", "25:00", "now+5fortnights", "2026-13-01", "tomorrow+1"}) {
    EXPECT_FALSE(ParseBeginTime(bad, kNow).ok()) << bad;
  }
}

TEST_F(BeginTime, SbatchSendsItAndRefusesBadOnes) {
  TestCli t;
  ASSERT_EQ(RunSbatch({"--begin=now+1hour", "--wrap", "true"}, t.env), 0) << t.err.str();
  EXPECT_EQ(t.api.submits.back().spec().begin_time(), t.env.clock->Now() + 3600);
  ASSERT_EQ(RunSbatch({"-b", "16:00", "--wrap", "true"}, t.env), 0) << t.err.str();
  EXPECT_GT(t.api.submits.back().spec().begin_time(), t.env.clock->Now());
  EXPECT_NE(RunSbatch({"--begin=whenever", "--wrap", "true"}, t.env), 0);
  EXPECT_NE(t.err.str().find("sbatch: error: Invalid time specification whenever"),
            std::string::npos)
      << t.err.str();
}

}  // namespace
}  // namespace sluice
