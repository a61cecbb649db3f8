#include "common/slurm_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

namespace sluice {
namespace {

using ::testing::HasSubstr;

int64_t Minutes(std::string_view s) {
  auto r = ParseTimeLimitMinutes(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().message();
  return r.ok() ? *r : -999;
}

// ---------------------------------------------------------------- times

TEST(ParseTimeLimit, AllSlurmForms) {
  EXPECT_EQ(Minutes("5"), 5);
  EXPECT_EQ(Minutes("0"), 0);
  EXPECT_EQ(Minutes("90"), 90);
  EXPECT_EQ(Minutes("10:00"), 10);  // MM:SS
  EXPECT_EQ(Minutes("10:30"), 11);  // seconds round up
  EXPECT_EQ(Minutes("0:01"), 1);
  EXPECT_EQ(Minutes("0:00"), 0);
  EXPECT_EQ(Minutes("1:00:00"), 60);  // HH:MM:SS
  EXPECT_EQ(Minutes("100:00:00"), 6000);
  EXPECT_EQ(Minutes("1:02:03"), 63);
  EXPECT_EQ(Minutes("2-0"), 2880);  // D-HH
  EXPECT_EQ(Minutes("1-12"), 2160);
  EXPECT_EQ(Minutes("1-02:30"), 1590);     // D-HH:MM
  EXPECT_EQ(Minutes("1-00:00:01"), 1441);  // D-HH:MM:SS
  EXPECT_EQ(Minutes("7-00:00:00"), 7 * 1440);
  EXPECT_EQ(Minutes(" 30 "), 30);
}

TEST(ParseTimeLimit, Unlimited) {
  EXPECT_EQ(Minutes("UNLIMITED"), kUnlimited);
  EXPECT_EQ(Minutes("unlimited"), kUnlimited);
  EXPECT_EQ(Minutes("INFINITE"), kUnlimited);
  EXPECT_EQ(Minutes("Infinite"), kUnlimited);
  EXPECT_EQ(Minutes("-1"), kUnlimited);
}

TEST(ParseTimeLimit, Malformed) {
  for (const char* bad : {"",      " ",         "abc",        "1:2:3:4", "-5",  "1-",   "-",
                          "1-2-3", "1:",        ":1",         "1::2",    "1.5", "1h",   "1-a",
                          "x-1",   "1-1:1:1:1", "9999999999", "1 2",     "+5",  "1-:30"}) {
    auto r = ParseTimeLimitMinutes(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' should fail";
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("Invalid time limit"));
    }
  }
}

TEST(FormatTimes, DurationAsSqueueTime) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(2), "0:02");
  EXPECT_EQ(FormatDuration(14), "0:14");
  EXPECT_EQ(FormatDuration(87), "1:27");
  EXPECT_EQ(FormatDuration(3599), "59:59");
  EXPECT_EQ(FormatDuration(3600), "1:00:00");
  EXPECT_EQ(FormatDuration(3723), "1:02:03");
  EXPECT_EQ(FormatDuration(86399), "23:59:59");
  EXPECT_EQ(FormatDuration(86400), "1-00:00:00");
  EXPECT_EQ(FormatDuration(2 * 86400 + 3723), "2-01:02:03");
  EXPECT_EQ(FormatDuration(-1), "INVALID");
}

TEST(FormatTimes, LimitAsSqueue) {
  EXPECT_EQ(FormatLimitMinutes(kUnlimited), "UNLIMITED");
  EXPECT_EQ(FormatLimitMinutes(1), "1:00");
  EXPECT_EQ(FormatLimitMinutes(5), "5:00");
  EXPECT_EQ(FormatLimitMinutes(60), "1:00:00");
  EXPECT_EQ(FormatLimitMinutes(1440), "1-00:00:00");
  EXPECT_EQ(FormatLimitMinutes(0), "0:00");
}

TEST(FormatTimes, HmsAsScontrol) {
  EXPECT_EQ(FormatHms(0), "00:00:00");
  EXPECT_EQ(FormatHms(3), "00:00:03");
  EXPECT_EQ(FormatHms(87), "00:01:27");
  EXPECT_EQ(FormatHms(36000), "10:00:00");
  EXPECT_EQ(FormatHms(86400), "1-00:00:00");
  EXPECT_EQ(FormatHms(10 * 86400 + 5), "10-00:00:05");
  EXPECT_EQ(FormatHms(-5), "INVALID");
  EXPECT_EQ(FormatHmsLimit(5), "00:05:00");
  EXPECT_EQ(FormatHmsLimit(kUnlimited), "UNLIMITED");
  EXPECT_EQ(FormatHmsLimit(7 * 1440), "7-00:00:00");
}

TEST(FormatTimes, SinfoLimit) {
  EXPECT_EQ(FormatSinfoLimit(kUnlimited), "infinite");
  EXPECT_EQ(FormatSinfoLimit(30), "30:00");
  EXPECT_EQ(FormatSinfoLimit(60), "1:00:00");
  EXPECT_EQ(FormatSinfoLimit(1440), "1-00:00:00");
}

TEST(FormatTimes, TimestampLocalTime) {
  EXPECT_EQ(FormatTimestamp(0), "Unknown");
  EXPECT_EQ(FormatTimestamp(-3), "Unknown");
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(FormatTimestamp(1796005573), "2026-11-30T02:26:13");
  setenv("TZ", "UTC-2", 1);  // POSIX sign: two hours east
  tzset();
  EXPECT_EQ(FormatTimestamp(1796005573), "2026-11-30T04:26:13");
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

TEST(FormatTimes, ParseFormatRoundTrip) {
  for (int64_t m : {1, 5, 59, 60, 61, 1439, 1440, 1441, 10000}) {
    EXPECT_EQ(Minutes(FormatHmsLimit(m)), m);
    EXPECT_EQ(Minutes(FormatLimitMinutes(m)), m) << FormatLimitMinutes(m);
  }
}

TEST(RepeatedCounts, AsSlurmEnv) {
  EXPECT_EQ(FormatRepeatedCounts({}), "");
  EXPECT_EQ(FormatRepeatedCounts({1}), "1");
  EXPECT_EQ(FormatRepeatedCounts({2, 2}), "2(x2)");
  EXPECT_EQ(FormatRepeatedCounts({3, 3, 1}), "3(x2),1");
  EXPECT_EQ(FormatRepeatedCounts({1, 2, 1}), "1,2,1");
  EXPECT_EQ(FormatRepeatedCounts({4, 1, 1, 1}), "4,1(x3)");
}

// ---------------------------------------------------------------- gres

TEST(ParseGres, Forms) {
  auto g = ParseGres("gpu");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<GresSpec>{{"gpu", "", 1}}));
  EXPECT_EQ(*ParseGres("gpu:8"), (std::vector<GresSpec>{{"gpu", "", 8}}));
  EXPECT_EQ(*ParseGres("gpu:h100:8"), (std::vector<GresSpec>{{"gpu", "h100", 8}}));
  EXPECT_EQ(*ParseGres("gpu:h100"), (std::vector<GresSpec>{{"gpu", "h100", 1}}));
  EXPECT_EQ(*ParseGres("gpu:h100:2,gpu:a100:1"),
            (std::vector<GresSpec>{{"gpu", "h100", 2}, {"gpu", "a100", 1}}));
  EXPECT_EQ(*ParseGres("gres/gpu:2"), (std::vector<GresSpec>{{"gpu", "", 2}}));
  EXPECT_EQ(*ParseGres("gpu:a100-80gb:4"), (std::vector<GresSpec>{{"gpu", "a100-80gb", 4}}));
  EXPECT_EQ(*ParseGres("gpu:1080ti:4"), (std::vector<GresSpec>{{"gpu", "1080ti", 4}}));
  EXPECT_EQ(*ParseGres("mps:100"), (std::vector<GresSpec>{{"mps", "", 100}}));
  EXPECT_TRUE(ParseGres("")->empty());
}

TEST(ParseGres, Malformed) {
  for (const char* bad :
       {"gpu:0", "gpu:-1", "gpu:h100:0", "gpu:h100:-2", "gpu:h100:x", "gpu:", ":8", "gpu:h100:2:3",
        "gpu,,gpu", "gpu:8,", "g pu", "gpu:h100:99999999999999999999", "gpu:+1"}) {
    auto r = ParseGres(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' should fail";
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("Invalid generic resource"));
    }
  }
}

TEST(ParseGpuCount, Forms) {
  EXPECT_EQ(*ParseGpuCount("8"), (GresSpec{"gpu", "", 8}));
  EXPECT_EQ(*ParseGpuCount("h100:8"), (GresSpec{"gpu", "h100", 8}));
  EXPECT_EQ(*ParseGpuCount("gpu:h100:8"), (GresSpec{"gpu", "h100", 8}));
  EXPECT_EQ(*ParseGpuCount("gpu:8"), (GresSpec{"gpu", "", 8}));
  EXPECT_EQ(*ParseGpuCount("0"), (GresSpec{"gpu", "", 0}));
}

TEST(ParseGpuCount, Malformed) {
  for (const char* bad : {"", "-1", "x", "h100", "h100:", "h100:x", "a:b:c:d", "gpu:h100:-1", "1,2",
                          "h100:8,a100:1"}) {
    EXPECT_FALSE(ParseGpuCount(bad).ok()) << "'" << bad << "' should fail";
  }
}

// ---------------------------------------------------------------- signals

TEST(Signals, Parse) {
  EXPECT_EQ(*ParseSignal("USR1"), SIGUSR1);
  EXPECT_EQ(*ParseSignal("SIGUSR1"), SIGUSR1);
  EXPECT_EQ(*ParseSignal("sigusr2"), SIGUSR2);
  EXPECT_EQ(*ParseSignal("usr2"), SIGUSR2);
  EXPECT_EQ(*ParseSignal("TERM"), SIGTERM);
  EXPECT_EQ(*ParseSignal("KILL"), SIGKILL);
  EXPECT_EQ(*ParseSignal("9"), 9);
  EXPECT_EQ(*ParseSignal("10"), 10);
  EXPECT_EQ(*ParseSignal("64"), 64);
  EXPECT_EQ(*ParseSignal("SIGCONT"), SIGCONT);
  EXPECT_EQ(*ParseSignal("POLL"), SIGIO);
}

TEST(Signals, Unknown) {
  for (const char* bad : {"", "SIG", "FOO", "SIGFOO", "0", "65", "-1", "USR1X", "1.0"}) {
    auto r = ParseSignal(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' should fail";
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("Invalid signal"));
    }
  }
}

TEST(Signals, Names) {
  EXPECT_EQ(SignalName(SIGUSR1), "USR1");
  EXPECT_EQ(SignalName(SIGTERM), "TERM");
  EXPECT_EQ(SignalName(SIGKILL), "KILL");
  EXPECT_EQ(SignalName(SIGIO), "IO");
  EXPECT_EQ(SignalName(50), "50");
  for (int sig = 1; sig <= 31; ++sig) EXPECT_EQ(*ParseSignal(SignalName(sig)), sig);
}

// ---------------------------------------------------------------- output patterns

PatternVars Job() {
  PatternVars v;
  v.job_id = 42;
  v.job_name = "train";
  v.user = "alice";
  v.node = "node01";
  return v;
}

TEST(OutputPattern, Basics) {
  PatternVars v = Job();
  EXPECT_EQ(ExpandOutputPattern("slurm-%j.out", v), "slurm-42.out");
  EXPECT_EQ(ExpandOutputPattern("%x-%u-%N.log", v), "train-alice-node01.log");
  EXPECT_EQ(ExpandOutputPattern("100%%-%j", v), "100%-42");
  EXPECT_EQ(ExpandOutputPattern("plain.txt", v), "plain.txt");
  EXPECT_EQ(ExpandOutputPattern("", v), "");
}

TEST(OutputPattern, ZeroPadding) {
  PatternVars v = Job();
  EXPECT_EQ(ExpandOutputPattern("%5j", v), "00042");
  EXPECT_EQ(ExpandOutputPattern("%1j", v), "42");
  EXPECT_EQ(ExpandOutputPattern("%10x", v), "train");  // width only pads numbers
}

TEST(OutputPattern, NonArrayJob) {
  PatternVars v = Job();
  EXPECT_EQ(ExpandOutputPattern("%A_%a", v), "42_4294967294");
  EXPECT_EQ(ExpandOutputPattern("%b", v), "4");
}

TEST(OutputPattern, ArrayJob) {
  PatternVars v = Job();
  v.job_id = 45;
  v.array_job_id = 40;
  v.array_task_id = 5;
  EXPECT_EQ(ExpandOutputPattern("%A_%a.out", v), "40_5.out");
  EXPECT_EQ(ExpandOutputPattern("%j", v), "45");
  EXPECT_EQ(ExpandOutputPattern("%3a", v), "005");
  v.array_task_id = 0;
  EXPECT_EQ(ExpandOutputPattern("%a", v), "0");
  v.array_task_id = 17;
  EXPECT_EQ(ExpandOutputPattern("%b", v), "7");
}

TEST(OutputPattern, StepsAndTasks) {
  PatternVars v = Job();
  EXPECT_EQ(ExpandOutputPattern("%J-%s", v), "42-batch");
  EXPECT_EQ(ExpandOutputPattern("%t-%n", v), "%t-%n");  // left for the tasks
  v.step_id = 3;
  v.task_id = 7;
  v.node_index = 1;
  EXPECT_EQ(ExpandOutputPattern("%J-%s-%t-%n-%2t", v), "42.3-3-7-1-07");
}

TEST(OutputPattern, UnknownAndUnsetLeftAsIs) {
  PatternVars v = Job();
  EXPECT_EQ(ExpandOutputPattern("%q %Z %5q", v), "%q %Z %5q");
  EXPECT_EQ(ExpandOutputPattern("end%", v), "end%");
  EXPECT_EQ(ExpandOutputPattern("end%5", v), "end%5");
  v.node.clear();
  EXPECT_EQ(ExpandOutputPattern("%N-%j", v), "%N-42");
}

TEST(OutputPattern, BackslashDisablesExpansion) {
  EXPECT_EQ(ExpandOutputPattern("a\\%j", Job()), "a%j");
  EXPECT_EQ(ExpandOutputPattern("\\out-%x", Job()), "out-%x");
}

}  // namespace
}  // namespace sluice
