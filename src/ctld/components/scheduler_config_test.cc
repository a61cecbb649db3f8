#include "ctld/components/scheduler_config.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

using Policy = sched::SchedulerConfig::Policy;

Config With(std::map<std::string, std::string> raw) {
  Config c;
  c.raw = std::move(raw);
  return c;
}

TEST(SchedulerConfig, DefaultsToEasyBackfill) {
  auto c = SchedulerConfigFrom(With({}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->policy, Policy::kEasy);
}

TEST(SchedulerConfig, BuiltinIsFifo) {
  auto c = SchedulerConfigFrom(With({{"SchedulerType", "sched/builtin"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->policy, Policy::kFifo);
}

TEST(SchedulerConfig, ParametersAreApplied) {
  auto c = SchedulerConfigFrom(
      With({{"SchedulerType", "sched/backfill"},
            {"SchedulerParameters",
             "bf_conservative,bf_max_job_test=500,bf_window=120,bf_resolution=30,defer"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->policy, Policy::kConservative);
  EXPECT_EQ(c->bf_max_job_test, 500);
  EXPECT_EQ(c->bf_window_s, 7200);
  EXPECT_EQ(c->bf_resolution_s, 30);
}

TEST(SchedulerConfig, BadValuesAndTypesAreErrors) {
  EXPECT_FALSE(SchedulerConfigFrom(With({{"SchedulerParameters", "bf_window=abc"}})).ok());
  EXPECT_FALSE(SchedulerConfigFrom(With({{"SchedulerType", "sched/wiki"}})).ok());
}

TEST(SchedulerConfig, BackfillOrderPredictionAndStarvation) {
  auto c = SchedulerConfigFrom(
      With({{"SchedulerParameters", "bf_order=sjbf,bf_predict=user2,bf_starvation_factor=4"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bf_order.order, sched::BackfillOrder::kSjbf);
  EXPECT_EQ(c->bf_order.starvation_factor, 4.0);
  EXPECT_EQ(c->bf_predict, sched::SchedulerConfig::Prediction::kUser2);
  auto d = SchedulerConfigFrom(With({}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->bf_order.order, sched::BackfillOrder::kPriority);
  EXPECT_EQ(d->bf_predict, sched::SchedulerConfig::Prediction::kNone);
  EXPECT_FALSE(SchedulerConfigFrom(With({{"SchedulerParameters", "bf_order=fastest"}})).ok());
  EXPECT_FALSE(SchedulerConfigFrom(With({{"SchedulerParameters", "bf_predict=ml"}})).ok());
}

TEST(SchedulerConfig, QueueOrder) {
  auto c = SchedulerConfigFrom(With({{"SchedulerParameters", "queue_order=unicep"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->queue_order, sched::BackfillOrder::kUnicep);
  EXPECT_EQ(c->bf_order.order, sched::BackfillOrder::kPriority);
  EXPECT_EQ(SchedulerConfigFrom(With({}))->queue_order, sched::BackfillOrder::kPriority);
  auto bad = SchedulerConfigFrom(With({{"SchedulerParameters", "queue_order=lifo"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.status().message(),
      "SchedulerParameters: queue_order=lifo (want priority, unicep, wfp3, sjbf, f1 or sgtf)");
}

}  // namespace
}  // namespace sluice::ctld
