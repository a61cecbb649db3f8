// Partition access keys: AllowAccounts, DenyAccounts, AllowQos, AllowGroups, OverSubscribe.
#include <gtest/gtest.h>

#include "common/config.h"

namespace sluice {
namespace {

TEST(PartitionAccessConfigTest, ParsesAccessListsAndExclusive) {
  auto c = ParseConfig(
      "NodeName=n[1-2] CPUs=4\n"
      "PartitionName=a Nodes=ALL AllowAccounts=ml,vision AllowQos=high AllowGroups=gpu "
      "OverSubscribe=EXCLUSIVE PriorityTier=3\n"
      "PartitionName=b Nodes=ALL DenyAccounts=guests AllowAccounts=ALL OverSubscribe=FORCE:4\n",
      "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const PartitionConfig* a = c->FindPartition("a");
  EXPECT_EQ(a->allow_accounts, (std::vector<std::string>{"ml", "vision"}));
  EXPECT_EQ(a->allow_qos, std::vector<std::string>{"high"});
  EXPECT_EQ(a->allow_groups, std::vector<std::string>{"gpu"});
  EXPECT_TRUE(a->exclusive);
  EXPECT_EQ(a->priority_tier, 3);
  const PartitionConfig* b = c->FindPartition("b");
  EXPECT_TRUE(b->allow_accounts.empty());
  EXPECT_EQ(b->deny_accounts, std::vector<std::string>{"guests"});
  EXPECT_FALSE(b->exclusive);
  auto bad =
      ParseConfig("NodeName=n1\nPartitionName=c Nodes=ALL OverSubscribe=SOMETIMES\n", "t.conf");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace sluice
