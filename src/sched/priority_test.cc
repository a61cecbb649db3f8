// Multifactor priority math, decay, and Fair Tree on hand-computed trees plus
// deterministic random-tree properties.
#include "sched/priority.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

namespace sluice::sched {
namespace {

TEST(PriorityMath, AgeFactorGrowsThenCaps) {
  EXPECT_DOUBLE_EQ(AgeFactor(0, 100), 0.0);
  EXPECT_DOUBLE_EQ(AgeFactor(25, 100), 0.25);
  EXPECT_DOUBLE_EQ(AgeFactor(100, 100), 1.0);
  EXPECT_DOUBLE_EQ(AgeFactor(5000, 100), 1.0);
  EXPECT_DOUBLE_EQ(AgeFactor(-5, 100), 0.0);  // eligible in the future
  EXPECT_DOUBLE_EQ(AgeFactor(50, 0), 0.0);
}

TEST(PriorityMath, JobSizeFactor) {
  ClusterTotals t{4, 32};
  EXPECT_DOUBLE_EQ(JobSizeFactor(1, 8, t, false), 0.25);
  EXPECT_DOUBLE_EQ(JobSizeFactor(4, 32, t, false), 1.0);
  EXPECT_DOUBLE_EQ(JobSizeFactor(2, 4, t, false), (0.5 + 0.125) / 2);
  EXPECT_DOUBLE_EQ(JobSizeFactor(1, 8, t, true), 0.75);
  EXPECT_DOUBLE_EQ(JobSizeFactor(4, 32, t, true), 0.0);
  EXPECT_DOUBLE_EQ(JobSizeFactor(1, 1, ClusterTotals{0, 0}, false), 0.0);
}

TEST(PriorityMath, WeightedSumMinusNice) {
  PriorityWeights w;
  w.age = 1000;
  w.fairshare = 10000;
  w.job_size = 100;
  w.partition = 500;
  w.qos = 7;
  w.max_age_s = 1000;
  PriorityInput in;
  in.eligible_time = 100;
  in.num_nodes = 2;
  in.num_cpus = 16;
  in.fairshare = 0.5;
  in.partition_job_factor = 1;
  in.max_partition_job_factor = 4;
  in.nice = 30;
  PriorityFactors f = ComputePriority(w, in, ClusterTotals{4, 32}, 600);
  EXPECT_DOUBLE_EQ(f.age, 0.5);
  EXPECT_EQ(f.w_age, 500);
  EXPECT_EQ(f.w_fairshare, 5000);
  EXPECT_EQ(f.w_job_size, 50);
  EXPECT_EQ(f.w_partition, 125);
  EXPECT_EQ(f.w_qos, 0);  // no QOS priorities configured
  EXPECT_EQ(f.priority, 500 + 5000 + 50 + 125 - 30);
}

TEST(PriorityMath, PriorityIsAtLeastOne) {
  PriorityWeights w;  // all weights zero: everything has priority 1, like the reference
  PriorityFactors f = ComputePriority(w, PriorityInput{}, ClusterTotals{1, 1}, 10);
  EXPECT_EQ(f.priority, 1);
  PriorityInput in;
  in.nice = 10000;
  w.age = 10;
  EXPECT_EQ(ComputePriority(w, in, ClusterTotals{1, 1}, 1 << 30).priority, 1);
  in.nice = -100;  // negative nice (admin) raises priority
  EXPECT_EQ(ComputePriority(w, in, ClusterTotals{1, 1}, 0).priority, 100);
}

TEST(PriorityMath, Decay) {
  EXPECT_DOUBLE_EQ(DecayFactor(0, 3600), 1.0);
  EXPECT_DOUBLE_EQ(DecayFactor(3600, 3600), 0.5);
  EXPECT_DOUBLE_EQ(DecayFactor(7200, 3600), 0.25);
  EXPECT_DOUBLE_EQ(DecayFactor(5000, 0), 1.0);  // no decay configured
  // Decaying in two steps equals decaying once over the sum.
  EXPECT_NEAR(DecayFactor(1000, 3600) * DecayFactor(2600, 3600), 0.5, 1e-12);
}

std::map<std::string, ShareRow> ByName(const std::vector<ShareRow>& rows) {
  std::map<std::string, ShareRow> m;
  for (const auto& r : rows) m[r.account + "/" + r.user] = r;
  return m;
}

std::vector<Assoc> TwoAccounts(double a1, double a2, double b1) {
  return {{"A", "", "root", 1, 0},
          {"B", "", "root", 1, 0},
          {"A", "a1", "", 1, a1},
          {"A", "a2", "", 1, a2},
          {"B", "b1", "", 1, b1}};
}

TEST(FairTree, EqualAccountsZeroUsageUserFirst) {
  auto rows = ComputeFairTree(TwoAccounts(100, 0, 100));
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  auto m = ByName(*rows);
  // root: A and B both S=.5 U=.5 -> LF 1 (tie, name order). In A: a2 inf, a1 .5/1.
  EXPECT_DOUBLE_EQ(m["A/"].level_fs, 1.0);
  EXPECT_DOUBLE_EQ(m["A/a1"].level_fs, 0.5);
  EXPECT_TRUE(std::isinf(m["A/a2"].level_fs));
  EXPECT_DOUBLE_EQ(m["A/a2"].fairshare, 1.0);
  EXPECT_DOUBLE_EQ(m["A/a1"].fairshare, 2.0 / 3);
  EXPECT_DOUBLE_EQ(m["B/b1"].fairshare, 1.0 / 3);
  EXPECT_DOUBLE_EQ(m["root/"].raw_usage, 200);
  EXPECT_DOUBLE_EQ(m["A/"].effective_usage, 0.5);
  EXPECT_DOUBLE_EQ(m["A/a1"].norm_shares, 0.25);
}

TEST(FairTree, HeavyAccountRanksBelowLightOne) {
  auto rows = ComputeFairTree(TwoAccounts(300, 0, 100));
  ASSERT_TRUE(rows.ok());
  auto m = ByName(*rows);
  // A: S .5 U .75 -> 2/3; B: S .5 U .25 -> 2. B's user first, then A's users.
  EXPECT_DOUBLE_EQ(m["A/"].level_fs, 0.5 / 0.75);
  EXPECT_DOUBLE_EQ(m["B/"].level_fs, 2.0);
  EXPECT_DOUBLE_EQ(m["B/b1"].fairshare, 1.0);
  EXPECT_DOUBLE_EQ(m["A/a2"].fairshare, 2.0 / 3);
  EXPECT_DOUBLE_EQ(m["A/a1"].fairshare, 1.0 / 3);
}

TEST(FairTree, SharesOutweighUsage) {
  std::vector<Assoc> t = {{"A", "", "root", 1, 0}, {"A", "x", "", 3, 60}, {"A", "y", "", 1, 40}};
  auto m = ByName(*ComputeFairTree(t));
  EXPECT_DOUBLE_EQ(m["A/x"].level_fs, 0.75 / 0.6);
  EXPECT_DOUBLE_EQ(m["A/y"].level_fs, 0.25 / 0.4);
  EXPECT_GT(m["A/x"].fairshare, m["A/y"].fairshare);
}

TEST(FairTree, TiedUsersShareARankAndZeroSharesGetZero) {
  std::vector<Assoc> t = {{"A", "", "root", 1, 0},
                          {"A", "p", "", 1, 0},
                          {"A", "q", "", 1, 0},
                          {"A", "r", "", 1, 10},
                          {"A", "z", "", 0, 0}};
  auto m = ByName(*ComputeFairTree(t));
  EXPECT_DOUBLE_EQ(m["A/p"].fairshare, 1.0);  // rank 4 of 4
  EXPECT_DOUBLE_EQ(m["A/q"].fairshare, 1.0);
  EXPECT_DOUBLE_EQ(m["A/r"].fairshare, 0.5);  // rank 4 - 2
  EXPECT_DOUBLE_EQ(m["A/z"].fairshare, 0.0);
}

TEST(FairTree, RowsInTreeOrder) {
  std::vector<Assoc> t = {{"B", "", "root", 1, 0},
                          {"A", "", "root", 1, 0},
                          {"A2", "", "A", 1, 0},
                          {"A", "u", "", 1, 0},
                          {"root", "root", "", 1, 0}};
  auto rows = ComputeFairTree(t);
  ASSERT_TRUE(rows.ok());
  std::vector<std::string> names;
  for (const auto& r : *rows) names.push_back(std::to_string(r.depth) + r.account + "/" + r.user);
  EXPECT_EQ(names,
            (std::vector<std::string>{"0root/", "1root/root", "1A/", "2A/u", "2A2/", "1B/"}));
  EXPECT_EQ((*rows)[0].fairshare, -1);
  EXPECT_DOUBLE_EQ((*rows)[0].effective_usage, 1.0);
}

TEST(FairTree, Errors) {
  EXPECT_FALSE(ComputeFairTree({{"A", "", "nope", 1, 0}}).ok());
  EXPECT_FALSE(ComputeFairTree({{"A", "", "B", 1, 0}, {"B", "", "A", 1, 0}}).ok());  // cycle
  EXPECT_FALSE(ComputeFairTree({{"A", "", "root", 1, 0}, {"A", "", "root", 1, 0}}).ok());
  EXPECT_FALSE(ComputeFairTree({{"X", "u", "", 1, 0}}).ok());
  EXPECT_FALSE(ComputeFairTree({{"root", "u", "", 1, 0}, {"root", "u", "", 1, 0}}).ok());
  auto empty = ComputeFairTree({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 1u);
}

// Random trees (fixed seeds): within one account, a user with no usage ranks at least as
// high as every user with usage and equal shares; factors stay in [0, 1]; the first
// visited user with shares has factor 1.
TEST(FairTreeProperty, RandomTrees) {
  for (int seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    std::vector<Assoc> t;
    int accounts = 1 + static_cast<int>(rng() % 4);
    for (int a = 0; a < accounts; ++a) {
      std::string parent =
          a == 0 ? "root" : (rng() % 2 ? "root" : "acct" + std::to_string(rng() % a));
      t.push_back({"acct" + std::to_string(a), "", parent, 1 + static_cast<int64_t>(rng() % 3), 0});
      int users = 1 + static_cast<int>(rng() % 4);
      for (int u = 0; u < users; ++u) {
        double usage = rng() % 3 == 0 ? 0.0 : static_cast<double>(rng() % 1000);
        t.push_back({"acct" + std::to_string(a), "u" + std::to_string(u), "", 2, usage});
      }
    }
    auto rows = ComputeFairTree(t);
    ASSERT_TRUE(rows.ok()) << seed;
    double best = 0;
    for (const auto& r : *rows) {
      if (r.user.empty()) continue;
      EXPECT_GE(r.fairshare, 0.0);
      EXPECT_LE(r.fairshare, 1.0);
      best = std::max(best, r.fairshare);
      for (const auto& o : *rows) {
        if (o.user.empty() || o.account != r.account) continue;
        if (r.raw_usage == 0 && o.raw_usage > 0) {
          EXPECT_GT(r.fairshare, o.fairshare) << seed;
        }
        if (r.raw_usage < o.raw_usage) {
          EXPECT_GE(r.fairshare, o.fairshare) << seed;
        }
      }
    }
    EXPECT_DOUBLE_EQ(best, 1.0) << seed;
  }
}

}  // namespace
}  // namespace sluice::sched
