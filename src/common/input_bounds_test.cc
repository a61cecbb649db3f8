// Parsers that size something from a number in their input: each refuses a hostile
// number before it allocates for it, and stays linear in the length of its input.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <set>

#include "common/array_spec.h"
#include "common/config.h"
#include "common/hostlist.h"

namespace sluice {
namespace {

double SecondsFor(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(ArrayBoundsTest, HugeRangeIsRefusedWithoutExpanding) {
  // Issue 22: sbatch expanded these ids before it checked MaxArraySize (45 s, 8 GB).
  for (int64_t max : {kDefaultMaxArraySize, kMaxArraySizeCeiling, int64_t{INT64_MAX}}) {
    auto r = ParseArrayRanges("5-999399999", max);
    if (max == INT64_MAX) {
      ASSERT_TRUE(r.ok());  // syntax only: the count is arithmetic
      EXPECT_EQ(r->count_upper, 999399995);
      EXPECT_EQ(r->max_id, 999399999);
      EXPECT_EQ(r->ranges.size(), 1u);
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().message(), kMsgInvalidArray);
    }
  }
  EXPECT_EQ(ParseArrayRanges("0-99:7")->count_upper, 15);
  EXPECT_EQ(ParseArrayRanges("0-99:7")->max_id, 98);  // rounded onto the progression
  // The expanding parser never goes past Slurm's ceiling, whatever bound it is given.
  EXPECT_FALSE(ParseArraySpec("5-999399999", INT64_MAX).ok());
  EXPECT_FALSE(ParseArraySpec("4000001", INT64_MAX).ok());
  EXPECT_TRUE(ParseArraySpec("4000000", INT64_MAX).ok());
}

TEST(ArrayBoundsTest, MaxArraySizeZeroRefusesEveryArray) {
  EXPECT_FALSE(ParseArraySpec("0", 0).ok());
  EXPECT_TRUE(ParseArraySpec("9", 10).ok());
  EXPECT_FALSE(ParseArraySpec("10", 10).ok());
}

TEST(ArrayBoundsTest, RepeatedRangesAreMergedNotExpandedEachTime) {
  // 6000 copies of the widest range Slurm allows: each would add 4M ids if expanded.
  std::string spec = "0-4000000";
  for (int i = 0; i < 6000; ++i) spec += ",0-4000000";
  std::vector<int64_t> ids;
  double s = SecondsFor([&] { ids = ParseArraySpec(spec, kMaxArraySizeCeiling)->task_ids; });
  EXPECT_EQ(ids.size(), 4000001u);
  EXPECT_LT(s, 5.0);
}

// The merged expansion against a plain one, on random specs.
TEST(ArrayBoundsTest, MergedExpansionMatchesPlainExpansion) {
  std::mt19937 rng(22);
  for (int round = 0; round < 300; ++round) {
    std::string spec;
    std::set<int64_t> want;
    int parts = 1 + static_cast<int>(rng() % 6);
    for (int p = 0; p < parts; ++p) {
      int64_t lo = rng() % 60, hi = lo + rng() % 60, step = 1 + rng() % 7;
      if (p) spec += ",";
      spec += std::to_string(lo) + "-" + std::to_string(hi) + ":" + std::to_string(step);
      for (int64_t i = lo; i <= hi; i += step) want.insert(i);
    }
    auto got = ParseArraySpec(spec);
    ASSERT_TRUE(got.ok()) << spec;
    EXPECT_EQ(got->task_ids, std::vector<int64_t>(want.begin(), want.end())) << spec;
  }
}

TEST(HostlistBoundsTest, CountIsArithmeticAndBounded) {
  EXPECT_EQ(*CountHostlist("n[1-4],m[01-10]x[1-3]"), 34u);
  EXPECT_EQ(*CountHostlist("n[1-65536]"), 65536u);
  double s = SecondsFor([] {
    EXPECT_FALSE(CountHostlist("node[1-99999999]").ok());
    EXPECT_FALSE(ExpandHostlist("node[1-99999999]").ok());
    // Group sums that would overflow int64 if they were not clamped.
    std::string wide = "a[";
    for (int i = 0; i < 2000; ++i) wide += (i ? "," : "") + std::string("0-999999");
    wide += "]b[" + wide.substr(2) + "]c[" + wide.substr(2) + "]";
    EXPECT_FALSE(CountHostlist(wide).ok());
  });
  EXPECT_LT(s, 1.0);
}

TEST(HostlistBoundsTest, CallerBoundIsAppliedBeforeExpanding) {
  auto r = ExpandHostlist("n[1-5]", 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 4 names"), std::string::npos);
  EXPECT_EQ(ExpandHostlist("n[1-4]", 4)->size(), 4u);
  EXPECT_FALSE(CountHostlist("n[1-3],n[1-3]", 5).ok());
}

TEST(ConfigBoundsTest, MaxArraySizeKey) {
  const std::string base = "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n";
  EXPECT_EQ(ParseConfig(base, "t.conf")->max_array_size, 1001);
  EXPECT_EQ(ParseConfig("MaxArraySize=10\n" + base, "t.conf")->max_array_size, 10);
  EXPECT_EQ(ParseConfig("MaxArraySize=0\n" + base, "t.conf")->max_array_size, 0);
  EXPECT_EQ(ParseConfig("MaxArraySize=4000001\n" + base, "t.conf")->max_array_size, 4000001);
  EXPECT_FALSE(ParseConfig("MaxArraySize=4000002\n" + base, "t.conf").ok());
  EXPECT_FALSE(ParseConfig("MaxArraySize=-1\n" + base, "t.conf").ok());
  EXPECT_FALSE(ParseConfig("MaxArraySize=99999999999999999999\n" + base, "t.conf").ok());
}

TEST(ConfigBoundsTest, NodeCountIsBoundedBeforeExpanding) {
  double s = SecondsFor([] {
    auto huge = ParseConfig("NodeName=n[1-99999999] CPUs=1\n", "t.conf");
    ASSERT_FALSE(huge.ok());
    auto over = ParseConfig("NodeName=a[1-65536] CPUs=1\nNodeName=b1 CPUs=1\n", "t.conf");
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.status().message().find("more than 65536 nodes"), std::string::npos)
        << over.status().message();
  });
  EXPECT_LT(s, 5.0);
  // At the bound, with a partition naming all of them (deduplicated in linear time).
  auto at = ParseConfig("NodeName=a[1-65536] CPUs=1\nPartitionName=p Nodes=a[1-65536]\n", "t.conf");
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->nodes.size(), kMaxConfigNodes);
  EXPECT_EQ(at->partitions[0].nodes.size(), kMaxConfigNodes);
}

}  // namespace
}  // namespace sluice
