// GPU-hours per account over the last 24 hours, in 10-minute buckets.
#include "ctld/components/gpu_hours.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

constexpr int64_t kT0 = 1'700'000'400;  // a bucket boundary (divisible by 600)

sched::UsageCharge Job(const std::string& account, int64_t start, int64_t end, int64_t gpus) {
  sched::UsageCharge c;
  c.key = {account, "u"};
  c.start = start;
  c.end = end;
  c.gpus = gpus;
  return c;
}

TEST(GpuHoursWindow, ChargesEachStretchOnceAcrossBuckets) {
  GpuHoursWindow w;
  const auto running = Job("vision", kT0, 0, 8);
  w.Charge(kT0, {running});
  EXPECT_TRUE(w.HoursByAccount().empty());
  w.Charge(kT0 + 900, {running});  // 15 min over two buckets
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("vision"), 8 * 0.25);
  w.Charge(kT0 + 3600, {running, Job("nlp", kT0 + 1800, kT0 + 2700, 2)});
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("vision"), 8.0);
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("nlp"), 0.5);
  // An ended job charged again adds nothing.
  w.Charge(kT0 + 4200, {Job("nlp", kT0 + 1800, kT0 + 2700, 2)});
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("nlp"), 0.5);
}

TEST(GpuHoursWindow, ForgetsWhatIsOlderThanADay) {
  GpuHoursWindow w;
  w.Charge(kT0, {});
  w.Charge(kT0 + 3600, {Job("a", kT0, kT0 + 3600, 1)});
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("a"), 1.0);
  w.Charge(kT0 + 3600 + GpuHoursWindow::kWindowS - 600, {});
  EXPECT_DOUBLE_EQ(w.HoursByAccount().at("a"), 1.0 / 6);  // its last 10 minutes are left
  w.Charge(kT0 + 3600 + GpuHoursWindow::kWindowS, {});
  EXPECT_TRUE(w.HoursByAccount().empty());
}

TEST(GpuHoursWindow, FirstChargeLooksBackOneWindowForRunningJobs) {
  GpuHoursWindow w;  // e.g. after a controller restart
  w.Charge(kT0 + 2 * GpuHoursWindow::kWindowS, {Job("a", kT0, 0, 1), Job("b", kT0 - 60, kT0, 4)});
  EXPECT_NEAR(w.HoursByAccount().at("a"), 24.0, 1e-9);  // (144 buckets summed)
  EXPECT_EQ(w.HoursByAccount().count("b"), 0u);         // ended before the window
}

}  // namespace
}  // namespace sluice::ctld
