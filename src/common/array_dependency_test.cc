#include <gtest/gtest.h>

#include "common/array_spec.h"
#include "common/dependency_spec.h"

namespace sluice {
namespace {

std::vector<int64_t> Ids(const char* s) { return ParseArraySpec(s)->task_ids; }

TEST(ArraySpecTest, RangesListsStepsThrottle) {
  EXPECT_EQ(Ids("0-3"), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Ids("1,3,5-7"), (std::vector<int64_t>{1, 3, 5, 6, 7}));
  EXPECT_EQ(Ids("0-15:4"), (std::vector<int64_t>{0, 4, 8, 12}));
  EXPECT_EQ(Ids("7"), (std::vector<int64_t>{7}));
  EXPECT_EQ(Ids("3,1,3,2"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(ParseArraySpec("0-99")->task_ids.size(), 100u);
  auto t = ParseArraySpec("0-7%2");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->throttle, 2);
  EXPECT_EQ(t->task_ids.size(), 8u);
  EXPECT_EQ(ParseArraySpec("0-15:4%8")->throttle, 8);
  EXPECT_EQ(ParseArraySpec("1-3")->throttle, 0);
}

TEST(ArraySpecTest, MalformedIsRejected) {
  for (const char* bad : {"", "%2", "a", "1-", "-3", "5-3", "0-15:0", "0-15:x", "1,,2", "1,",
                          "0-3%", "0-3%x", "0-3%-1", "3:2", "1-2-3", "0-1000000000000000"}) {
    auto r = ParseArraySpec(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.status().message(), kMsgInvalidArray) << bad;
  }
}

TEST(ArraySpecTest, SizeLimit) {
  EXPECT_TRUE(ParseArraySpec("0-1000").ok());
  EXPECT_FALSE(ParseArraySpec("0-1001").ok());
  EXPECT_FALSE(ParseArraySpec("5", 5).ok());
  EXPECT_TRUE(ParseArraySpec("4", 5).ok());
}

TEST(ArraySpecTest, FormatAndStep) {
  EXPECT_EQ(FormatTaskIds({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(FormatTaskIds({1, 3, 5, 6, 7}), "1,3,5-7");
  EXPECT_EQ(FormatTaskIds({4}), "4");
  EXPECT_EQ(FormatTaskIds({}), "");
  EXPECT_EQ(UniformStep({0, 4, 8}), 4);
  EXPECT_EQ(UniformStep({1, 3, 5, 6}), 0);
  EXPECT_EQ(UniformStep({9}), 1);
}

TEST(DependencySpecTest, Parses) {
  auto d = ParseDependency("afterok:11:12,afterany:13");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->any);
  ASSERT_EQ(d->terms.size(), 3u);
  EXPECT_EQ(d->terms[0].type, "afterok");
  EXPECT_EQ(d->terms[1].job_id, 12);
  EXPECT_EQ(d->terms[2].type, "afterany");
  auto a = ParseDependency("afternotok:5?after:6+10");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->any);
  EXPECT_EQ(a->terms[1].delay_min, 10);
  auto s = ParseDependency("singleton");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->terms[0].type, "singleton");
  auto t = ParseDependency("aftercorr:40,afterok:41_3");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->terms[1].task_id, 3);
  EXPECT_EQ(FormatDependencyTerm(t->terms[1]), "afterok:41_3");
  EXPECT_EQ(FormatDependencyTerm(a->terms[1]), "after:6+10");
  EXPECT_EQ(FormatDependencyTerm(d->terms[0]), "afterok:11");
}

TEST(DependencySpecTest, MalformedIsRejected) {
  for (const char* bad : {"", "afterok", "afterok:", "afterok:x", "afterok:1,", "bogus:1",
                          "afterok:1?afterany:2,afterok:3", "afterok:1+5", "after:1+x", "afterok:0",
                          "afterok:-1", "singleton:1", "afterok:1_", ":1"}) {
    auto r = ParseDependency(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.status().message(), kMsgDependency) << bad;
  }
}

// Every term is evaluated on every scheduling pass: their number is bounded, in one
// group or across groups joined by ',' or '?'.
TEST(DependencySpecTest, TermCountIsBounded) {
  auto ids = [](size_t n, const char* sep) {
    std::string s = "afterok:1";
    for (size_t i = 1; i < n; ++i) s += sep + std::to_string(i + 1);
    return s;
  };
  EXPECT_TRUE(ParseDependency(ids(kMaxDependencyTerms, ":")).ok());
  EXPECT_FALSE(ParseDependency(ids(kMaxDependencyTerms + 1, ":")).ok());
  EXPECT_TRUE(ParseDependency(ids(kMaxDependencyTerms, ",afterany:")).ok());
  auto across = ParseDependency(ids(kMaxDependencyTerms + 1, "?after:"));
  ASSERT_FALSE(across.ok());
  EXPECT_EQ(across.status().message(), kMsgDependency);
  std::string singletons = "singleton";
  for (size_t i = 0; i < kMaxDependencyTerms; ++i) singletons += ",singleton";
  EXPECT_FALSE(ParseDependency(singletons).ok());
}

}  // namespace
}  // namespace sluice
