// Priority keys, partition priority keys, TRESBillingWeights and the interim account
// tree lines of the config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/config.h"
#include "common/tres_billing.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

constexpr const char* kBase =
    "NodeName=n[1-2] CPUs=8 RealMemory=1000\n"
    "PartitionName=gpu Nodes=ALL Default=YES PriorityJobFactor=10 PriorityTier=2\n";

Expected<Config> Parse(const std::string& extra) { return ParseConfig(kBase + extra, "t.conf"); }

TEST(PriorityConfig, Defaults) {
  auto c = Parse("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->priority.multifactor);
  EXPECT_EQ(c->priority.max_age_s, 7 * 86400);
  EXPECT_EQ(c->priority.decay_half_life_s, 7 * 86400);
  EXPECT_EQ(c->partitions[0].priority_job_factor, 10);
  EXPECT_EQ(c->partitions[0].priority_tier, 2);
  EXPECT_TRUE(c->accounts.empty());
}

TEST(PriorityConfig, AllKeys) {
  auto c = Parse(
      "PriorityType=priority/multifactor\nPriorityWeightAge=1000 PriorityWeightFairshare=10000\n"
      "PriorityWeightJobSize=100 PriorityWeightPartition=500 PriorityWeightQOS=7\n"
      "PriorityWeightTRES=CPU=100,GRES/gpu=1000\nPriorityMaxAge=1-0 PriorityDecayHalfLife=2:00:00\n"
      "PriorityFavorSmall=YES TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=4.0\n"
      "PriorityFlags=FAIR_TREE PriorityCalcPeriod=5\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const PriorityConfig& p = c->priority;
  EXPECT_TRUE(p.multifactor);
  EXPECT_EQ(p.weight_age, 1000);
  EXPECT_EQ(p.weight_fairshare, 10000);
  EXPECT_EQ(p.weight_job_size, 100);
  EXPECT_EQ(p.weight_partition, 500);
  EXPECT_EQ(p.weight_qos, 7);
  EXPECT_EQ(p.weight_tres, "CPU=100,GRES/gpu=1000");
  EXPECT_EQ(p.max_age_s, 86400);
  EXPECT_EQ(p.decay_half_life_s, 7200);
  EXPECT_TRUE(p.favor_small);
  EXPECT_EQ(p.tres_billing_weights, "CPU=1.0,Mem=0.25G,GRES/gpu=4.0");
}

TEST(PriorityConfig, BadValuesNameTheLine) {
  auto bad = [](const std::string& line) {
    auto c = Parse(line);
    EXPECT_FALSE(c.ok()) << line;
    return c.ok() ? std::string() : std::string(c.status().message());
  };
  EXPECT_THAT(bad("PriorityType=priority/fancy\n"), HasSubstr("t.conf:3: invalid PriorityType"));
  EXPECT_THAT(bad("PriorityWeightAge=lots\n"), HasSubstr("PriorityWeightAge"));
  EXPECT_THAT(bad("PriorityMaxAge=soon\n"), HasSubstr("PriorityMaxAge"));
  EXPECT_THAT(bad("TRESBillingWeights=CPU=x\n"), HasSubstr("invalid TRESBillingWeights"));
  EXPECT_THAT(bad("TRESBillingWeights=Bananas=1\n"), HasSubstr("unknown TRES 'Bananas'"));
  EXPECT_THAT(bad("PartitionName=p2 Nodes=ALL PriorityJobFactor=-1\n"),
              HasSubstr("PriorityJobFactor"));
}

TEST(AccountLines, BuildTree) {
  auto c = Parse(
      "AccountName=phys Fairshare=40\nAccountName=hep Parent=phys Fairshare=3\n"
      "AccountName=bio\nUserName=alice Account=hep Fairshare=2\nUserName=bob Account=bio\n"
      "UserName=alice Account=bio Fairshare=5\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->accounts.size(), 3u);
  EXPECT_EQ(c->accounts[0].parent, "root");
  EXPECT_EQ(c->accounts[0].shares, 40);
  EXPECT_EQ(c->accounts[1].parent, "phys");
  EXPECT_EQ(c->accounts[2].shares, 1);
  ASSERT_EQ(c->user_assocs.size(), 3u);
  EXPECT_EQ(c->user_assocs[0].account, "hep");
  EXPECT_EQ(c->user_assocs[0].shares, 2);
  EXPECT_EQ(c->user_assocs[1].shares, 1);
}

TEST(AccountLines, Errors) {
  auto msg = [](const std::string& extra) {
    auto c = Parse(extra);
    return c.ok() ? std::string("ok") : std::string(c.status().message());
  };
  EXPECT_THAT(msg("AccountName=a Parent=zz\n"),
              HasSubstr("t.conf:3: account 'a': unknown parent 'zz'"));
  EXPECT_THAT(msg("AccountName=a\nAccountName=a\n"), HasSubstr("duplicate account 'a'"));
  EXPECT_THAT(msg("AccountName=root\n"), HasSubstr("invalid AccountName"));
  EXPECT_THAT(msg("AccountName=a Fairshare=-3\n"), HasSubstr("Fairshare"));
  EXPECT_THAT(msg("AccountName=a Color=red\n"), HasSubstr("unknown key 'Color'"));
  EXPECT_THAT(msg("UserName=u Account=nope\n"), HasSubstr("unknown account 'nope'"));
  EXPECT_THAT(msg("UserName=u\nUserName=u\n"), HasSubstr("duplicate user 'u'"));
  EXPECT_THAT(msg("UserName=\n"), HasSubstr("empty UserName"));
}

TEST(TresBilling, ParseAndBill) {
  auto w = ParseTresBillingWeights("CPU=1.0,Mem=0.25G,GRES/gpu=4.0");
  ASSERT_TRUE(w.ok());
  TresAlloc a{8, 4096, 1, 2, "h100"};
  EXPECT_DOUBLE_EQ(TresBilling(*w, a), 8 + 0.25 * 4 + 4 * 2);
  auto typed = ParseTresBillingWeights("GRES/gpu=2,GRES/gpu:h100=10,Node=1,Mem=1");
  ASSERT_TRUE(typed.ok());
  EXPECT_DOUBLE_EQ(TresBilling(*typed, a), 10 * 2 + 1 + 4096);
  a.gpu_type = "a100";
  EXPECT_DOUBLE_EQ(TresBilling(*typed, a), 2 * 2 + 1 + 4096);
  auto none = ParseTresBillingWeights("");
  ASSERT_TRUE(none.ok());
  EXPECT_DOUBLE_EQ(TresBilling(*none, a), 8);  // unconfigured: billing = CPUs
  for (const char* bad : {"CPU", "CPU=", "CPU=-1", "Mem=1Q", "CPU=1,,Mem=2", "Foo=1"}) {
    EXPECT_FALSE(ParseTresBillingWeights(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace sluice
