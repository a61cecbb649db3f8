// RuntimePredictor (mean of the last two runs, capped at the limit) and the step-wise
// extension of an outlived prediction.
#include "sched/runtime_predictor.h"

#include <gtest/gtest.h>

#include <random>

namespace sluice::sched {
namespace {

TEST(RuntimePredictorTest, NoHistoryPredictsTheLimit) {
  RuntimePredictor p;
  EXPECT_EQ(p.Predict("alice", 3600), 3600);
  EXPECT_EQ(p.Predict("alice", 0), 0);
  EXPECT_FALSE(p.HasHistory("alice"));
}

TEST(RuntimePredictorTest, OneRunIsThePrediction) {
  RuntimePredictor p;
  p.Record("alice", 100);
  EXPECT_TRUE(p.HasHistory("alice"));
  EXPECT_EQ(p.Predict("alice", 3600), 100);
  EXPECT_EQ(p.Predict("bob", 3600), 3600);
}

TEST(RuntimePredictorTest, MeanOfTheLastTwoRuns) {
  RuntimePredictor p;
  p.Record("alice", 1000);  // forgotten after two more
  p.Record("alice", 100);
  p.Record("alice", 301);
  EXPECT_EQ(p.Predict("alice", 3600), 201);  // (100 + 301) / 2 rounded up
}

TEST(RuntimePredictorTest, NeverAboveTheLimit) {
  RuntimePredictor p;
  p.Record("alice", 5000);
  p.Record("alice", 7000);
  EXPECT_EQ(p.Predict("alice", 3600), 3600);
  EXPECT_EQ(p.Predict("alice", 0), 6000);  // unlimited: the mean
}

TEST(RuntimePredictorTest, ExtensionStepsUpTheLadderNotToTheLimit) {
  // Predicted 100 s, limit 10 h.
  EXPECT_EQ(ExtendPrediction(100, 50, 36000), 100);       // not outlived yet
  EXPECT_EQ(ExtendPrediction(100, 100, 36000), 300);      // next rung above 100 s: 5 min
  EXPECT_EQ(ExtendPrediction(100, 300, 36000), 900);      // then 15 min
  EXPECT_EQ(ExtendPrediction(100, 4000, 36000), 7200);    // 2 h
  EXPECT_EQ(ExtendPrediction(100, 30000, 36000), 36000);  // 20 h capped at the limit
  EXPECT_EQ(ExtendPrediction(100, 36000, 36000), 36000);
}

TEST(RuntimePredictorTest, ExtensionDoublesPastTheLadder) {
  EXPECT_EQ(ExtendPrediction(10, 360000, 0), 720000);  // past 100 h: doubling
  EXPECT_EQ(ExtendPrediction(10, 400000, 0), 720000);
}

TEST(RuntimePredictorTest, PredictedEndIsStartPlusPrediction) {
  EXPECT_EQ(PredictedEnd(1000, 100, 3600, 1050), 1100);
  EXPECT_EQ(PredictedEnd(1000, 100, 3600, 1100), 1300);  // outlived at 1100: 5 min
}

// Property: every extension is > elapsed (unless the limit is reached), <= the limit,
// >= the original prediction and monotone in elapsed.
TEST(RuntimePredictorTest, RandomisedExtensionInvariants) {
  std::mt19937_64 rng(20);
  for (int i = 0; i < 20000; ++i) {
    const int64_t limit = std::uniform_int_distribution<int64_t>(1, 500000)(rng);
    const int64_t pred = std::uniform_int_distribution<int64_t>(1, limit)(rng);
    const int64_t elapsed = std::uniform_int_distribution<int64_t>(0, limit)(rng);
    const int64_t ext = ExtendPrediction(pred, elapsed, limit);
    ASSERT_LE(ext, limit);
    ASSERT_GE(ext, pred);
    if (elapsed < limit) ASSERT_GT(ext, elapsed);
    ASSERT_LE(ext, ExtendPrediction(pred, std::min(limit, elapsed + 1), limit));
  }
}

}  // namespace
}  // namespace sluice::sched
