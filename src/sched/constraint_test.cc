#include "sched/constraint.h"

#include <gtest/gtest.h>

namespace sluice::sched {
namespace {

bool Match(const std::string& expr, const std::vector<std::string>& features) {
  auto parsed = FeatureExpr::Parse(expr);
  EXPECT_TRUE(parsed.ok()) << expr << ": " << parsed.status().message();
  return parsed.ok() && parsed->Matches(features);
}

TEST(ConstraintTest, EmptyMatchesEverything) {
  EXPECT_TRUE(Match("", {}));
  EXPECT_TRUE(Match("   ", {"x"}));
  EXPECT_TRUE(FeatureExpr::Parse("")->empty());
}

TEST(ConstraintTest, SingleFeature) {
  EXPECT_TRUE(Match("a100", {"ib", "a100"}));
  EXPECT_FALSE(Match("a100", {"h100"}));
  EXPECT_FALSE(Match("a100", {}));
  // Whole-name matching, not substrings.
  EXPECT_FALSE(Match("a10", {"a100"}));
  EXPECT_FALSE(Match("a100", {"a10"}));
}

TEST(ConstraintTest, AndOr) {
  EXPECT_TRUE(Match("a100&ib", {"a100", "ib"}));
  EXPECT_FALSE(Match("a100&ib", {"a100"}));
  EXPECT_FALSE(Match("a100&ib", {"ib"}));
  EXPECT_TRUE(Match("h100|a100", {"a100"}));
  EXPECT_TRUE(Match("h100|a100", {"h100"}));
  EXPECT_FALSE(Match("h100|a100", {"v100"}));
  EXPECT_TRUE(Match(" h100 | a100 ", {"a100"}));
}

TEST(ConstraintTest, AndBindsTighterThanOr) {
  // a|b&c == a|(b&c)
  EXPECT_TRUE(Match("a|b&c", {"a"}));
  EXPECT_FALSE(Match("a|b&c", {"b"}));
  EXPECT_TRUE(Match("a|b&c", {"b", "c"}));
  // a&b|c == (a&b)|c
  EXPECT_TRUE(Match("a&b|c", {"c"}));
  EXPECT_FALSE(Match("a&b|c", {"a"}));
}

TEST(ConstraintTest, Parentheses) {
  EXPECT_FALSE(Match("(a|b)&c", {"a"}));
  EXPECT_TRUE(Match("(a|b)&c", {"b", "c"}));
  EXPECT_TRUE(Match("((a))", {"a"}));
  EXPECT_TRUE(Match("x&(y|(z&w))", {"x", "z", "w"}));
  EXPECT_FALSE(Match("x&(y|(z&w))", {"x", "z"}));
}

TEST(ConstraintTest, FeatureNamesWithPunctuation) {
  EXPECT_TRUE(Match("gpu-80gb&rack_1.a", {"gpu-80gb", "rack_1.a"}));
}

TEST(ConstraintTest, MalformedExpressionsAreErrors) {
  for (const char* bad : {"&", "a&", "|a", "a||b", "a&&b", "(a", "a)", "()", "a b", "[a|b]", "a*2",
                          "!a", "a&(b|)", "a,b", "a$"}) {
    auto parsed = FeatureExpr::Parse(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find("Invalid feature specification"), std::string::npos)
        << parsed.status().message();
  }
  EXPECT_NE(FeatureExpr::Parse("[a|b]").status().message().find("not supported"),
            std::string::npos);
}

TEST(ConstraintTest, DeepNestingIsRejectedNotCrashing) {
  std::string deep(10000, '(');
  deep += "a" + std::string(10000, ')');
  EXPECT_FALSE(FeatureExpr::Parse(deep).ok());
  std::string ok(30, '(');
  ok += "a" + std::string(30, ')');
  EXPECT_TRUE(Match(ok, {"a"}));
}

}  // namespace
}  // namespace sluice::sched
