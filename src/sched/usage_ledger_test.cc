// UsageLedger: decay by half-life, then charge what ran since the last accrual.
#include "sched/usage_ledger.h"

#include <gtest/gtest.h>

namespace sluice::sched {
namespace {

UsageCharge Running(const std::string& user, int64_t start, double billing, int64_t cpus,
                    int64_t gpus, double factor = 1) {
  UsageCharge c;
  c.key = {"physics", user};
  c.start = start;
  c.billing_per_s = billing;
  c.cpus = cpus;
  c.gpus = gpus;
  c.factor = factor;
  return c;
}

TEST(UsageLedger, TheFirstAccrualOnlySetsTheTime) {
  UsageLedger l;
  l.Accrue(1000, 3600, {Running("alice", 10, 4, 4, 0)});
  EXPECT_EQ(l.time(), 1000);
  EXPECT_TRUE(l.rows().empty());
}

TEST(UsageLedger, ChargesBillingCpuAndGpuMinutesSinceTheLastAccrual) {
  UsageLedger l;
  l.Accrue(1000, 0, {});
  // Started before the last accrual: only the 120 s since are charged; QOS factor 0.5.
  l.Accrue(1120, 0, {Running("alice", 900, 10, 8, 2, 0.5), Running("bob", 1060, 1, 1, 0)});
  const AssocUsage* a = l.Find({"physics", "alice"});
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->billing, 10 * 60.0);
  EXPECT_DOUBLE_EQ(a->cpu_min, 8.0);
  EXPECT_DOUBLE_EQ(a->gpu_min, 2.0);
  EXPECT_DOUBLE_EQ(l.Billing({"physics", "bob"}), 60.0);
  EXPECT_EQ(l.Billing({"physics", "carol"}), 0.0);
}

TEST(UsageLedger, AJobThatEndedIsChargedUpToItsEndOnly) {
  UsageLedger l;
  l.Accrue(1000, 0, {});
  UsageCharge done = Running("alice", 1000, 1, 1, 0);
  done.end = 1030;
  UsageCharge never = Running("bob", 0, 1, 1, 0);  // never started: nothing
  l.Accrue(1100, 0, {done, never});
  EXPECT_DOUBLE_EQ(l.Billing({"physics", "alice"}), 30.0);
  EXPECT_EQ(l.Find({"physics", "bob"}), nullptr);
  l.Accrue(1200, 0, {done});  // already charged in full
  EXPECT_DOUBLE_EQ(l.Billing({"physics", "alice"}), 30.0);
}

TEST(UsageLedger, UsageDecaysByHalfEveryHalfLife) {
  UsageLedger l;
  l.Restore(1000, {{{"physics", "alice"}, {800, 80, 8}}});
  l.Accrue(1000 + 3600, 3600, {});
  EXPECT_DOUBLE_EQ(l.Billing({"physics", "alice"}), 400);
  l.Accrue(1000 + 3 * 3600, 3600, {});
  EXPECT_DOUBLE_EQ(l.Find({"physics", "alice"})->cpu_min, 10);
  EXPECT_DOUBLE_EQ(l.Find({"physics", "alice"})->gpu_min, 1);
}

TEST(UsageLedger, AClockThatWentBackRestartsFromNowWithoutCharging) {
  UsageLedger l;
  l.Restore(5000, {{{"physics", "alice"}, {100, 0, 0}}});
  l.Accrue(4000, 3600, {Running("alice", 3000, 1, 1, 0)});
  EXPECT_EQ(l.time(), 4000);
  EXPECT_DOUBLE_EQ(l.Billing({"physics", "alice"}), 100);
}

}  // namespace
}  // namespace sluice::sched
