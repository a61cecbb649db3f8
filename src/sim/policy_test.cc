// Policy names: the plain policies and the specs (prediction + backfill order).
#include "sim/policy.h"

#include <gtest/gtest.h>

namespace sluice::sim {
namespace {

using sched::BackfillOrder;
using Mode = SimPrediction::Mode;

struct Case {
  const char* name;
  Policy base;
  BackfillOrder order;
  Mode mode;
};

TEST(PolicySpecTest, NamesMapToBasePredictionAndOrder) {
  const Case cases[] = {
      {"fcfs", Policy::kFifo, BackfillOrder::kPriority, Mode::kNone},
      {"easy", Policy::kEasy, BackfillOrder::kPriority, Mode::kNone},
      {"conservative", Policy::kConservative, BackfillOrder::kPriority, Mode::kNone},
      {"easy-sjbf", Policy::kEasy, BackfillOrder::kSjbf, Mode::kNone},
      {"easy-pred", Policy::kEasy, BackfillOrder::kPriority, Mode::kUser2},
      {"easy-pred-sjbf", Policy::kEasy, BackfillOrder::kSjbf, Mode::kUser2},
      {"easy-clairvoyant-sjbf", Policy::kEasy, BackfillOrder::kSjbf, Mode::kClairvoyant},
      {"conservative-pred-f1", Policy::kConservative, BackfillOrder::kF1, Mode::kUser2},
      {"wfp3", Policy::kEasy, BackfillOrder::kWfp3, Mode::kNone},
      {"unicep", Policy::kEasy, BackfillOrder::kUnicep, Mode::kNone},
      {"f1", Policy::kEasy, BackfillOrder::kF1, Mode::kNone},
      {"gpu-sgtf", Policy::kEasy, BackfillOrder::kSgtf, Mode::kNone},
  };
  for (const Case& c : cases) {
    auto spec = ParsePolicySpec(c.name);
    ASSERT_TRUE(spec.ok()) << c.name << ": " << spec.status().message();
    EXPECT_EQ(spec->name, c.name);
    EXPECT_EQ(spec->base, c.base) << c.name;
    EXPECT_EQ(spec->order, c.order) << c.name;
    EXPECT_EQ(spec->prediction.mode, c.mode) << c.name;
  }
}

TEST(PolicySpecTest, AQueueOrderPrefixOrdersTheQueue) {
  auto spec = ParsePolicySpec("unicep:easy-pred-sjbf");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->name, "unicep:easy-pred-sjbf");
  EXPECT_EQ(spec->queue_order, BackfillOrder::kUnicep);
  EXPECT_EQ(spec->order, BackfillOrder::kSjbf);
  EXPECT_EQ(spec->prediction.mode, Mode::kUser2);
  EXPECT_EQ(ParsePolicySpec("easy")->queue_order, BackfillOrder::kPriority);
  EXPECT_EQ(ParsePolicySpec("lifo:easy").status().message(),
            "unknown queue order 'lifo' in 'lifo:easy' (want priority, sjbf, wfp3, unicep, f1 or "
            "sgtf)");
  EXPECT_FALSE(ParsePolicySpec("unicep:fcfs").ok());
  EXPECT_FALSE(ParsePolicySpec("unicep:").ok());
}

TEST(PolicySpecTest, UnknownNamesAreErrors) {
  for (const char* name :
       {"lottery", "easy-", "easy-fast", "pred", "easy-sjbf-pred", "easy-priority", "gpu",
        "gpu-sjbf", "fcfs-sjbf", "", ":easy", "unicep:wfp3:easy"}) {
    auto spec = ParsePolicySpec(name);
    EXPECT_FALSE(spec.ok()) << name;
  }
}

}  // namespace
}  // namespace sluice::sim
