// PreemptType / PreemptMode / PreemptExemptTime and the partition PreemptMode / GraceTime
// keys (config_preempt.cc, preempt_mode.h).
#include <gtest/gtest.h>

#include "common/config.h"

namespace sluice {
namespace {

constexpr char kNodes[] = "NodeName=n[1-2] CPUs=4\n";

TEST(PreemptConfig, DefaultsAreOff) {
  auto c = ParseConfig(std::string(kNodes) + "PartitionName=p Nodes=ALL\n", "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->preempt_type, PreemptType::kNone);
  EXPECT_EQ(c->preempt_mode, PreemptMode::kOff);
  EXPECT_EQ(c->preempt_exempt_time_s, -1);
  EXPECT_EQ(c->partitions[0].preempt_mode, PreemptMode::kCluster);
  EXPECT_EQ(c->partitions[0].grace_time_s, 0);
}

TEST(PreemptConfig, GlobalAndPartitionValues) {
  auto c =
      ParseConfig(std::string(kNodes) +
                      "PreemptType=preempt/partition_prio\npreemptmode=requeue\n"
                      "PreemptExemptTime=00:05:00\n"
                      "PartitionName=DEFAULT GraceTime=7\n"
                      "PartitionName=low Nodes=ALL PriorityTier=1 PreemptMode=CANCEL\n"
                      "PartitionName=high Nodes=ALL PriorityTier=10 PreemptMode=off GraceTime=0\n",
                  "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->preempt_type, PreemptType::kPartitionPrio);
  EXPECT_EQ(c->preempt_mode, PreemptMode::kRequeue);
  EXPECT_EQ(c->preempt_exempt_time_s, 300);
  EXPECT_EQ(c->partitions[0].preempt_mode, PreemptMode::kCancel);
  EXPECT_EQ(c->partitions[0].grace_time_s, 7);
  EXPECT_EQ(c->partitions[1].preempt_mode, PreemptMode::kOff);
  EXPECT_EQ(c->partitions[1].grace_time_s, 0);
  auto q =
      ParseConfig("PreemptType=PREEMPT/QOS\nPreemptMode=CANCEL\nPreemptExemptTime=-1\n", "t.conf");
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->preempt_type, PreemptType::kQos);
  EXPECT_EQ(q->preempt_exempt_time_s, -1);
}

TEST(PreemptConfig, ErrorsNameTheKeyAndLine) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"PreemptType=preempt/bogus\n", "t.conf:1: invalid value 'preempt/bogus' for PreemptType"},
      {"PreemptMode=sometimes\n", "t.conf:1: invalid value 'sometimes' for PreemptMode"},
      {"PreemptMode=SUSPEND\n", "t.conf:1: PreemptMode=SUSPEND is not supported"},
      {"PreemptMode=REQUEUE,GANG\n", "t.conf:1: PreemptMode=REQUEUE,GANG is not supported"},
      {"PreemptExemptTime=soon\n", "t.conf:1: invalid value 'soon' for PreemptExemptTime"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 GraceTime=-3\n", "for GraceTime"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 PreemptMode=gang\n",
       "PreemptMode=gang is not supported"},
  };
  for (const Case& k : cases) {
    auto c = ParseConfig(k.text, "t.conf");
    ASSERT_FALSE(c.ok()) << k.text;
    EXPECT_NE(c.status().message().find(k.want), std::string::npos)
        << k.text << " -> " << c.status().message();
  }
}

}  // namespace
}  // namespace sluice
