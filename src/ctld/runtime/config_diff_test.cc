#include "ctld/runtime/config_diff.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

constexpr char kBase[] =
    "ClusterName=x\n"
    "SlurmctldHost=h(127.0.0.1)\n"
    "NodeName=n[1-2] CPUs=4\n"
    "PartitionName=p Nodes=ALL Default=YES\n";

Config Parse(const std::string& text) {
  auto c = ParseConfig(text, "sluice.conf");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Config{};
}

std::vector<std::string> Changes(const std::string& before, const std::string& after, bool live) {
  std::vector<std::string> out;
  for (const ConfigChange& c : DiffConfigs(Parse(before), Parse(after)))
    if (c.live == live) out.push_back(c.what);
  return out;
}

TEST(ConfigDiff, TheSameFileChangesNothing) {
  EXPECT_TRUE(DiffConfigs(Parse(kBase), Parse(kBase)).empty());
}

TEST(ConfigDiff, SchedulerSettingsAndTheLogLevelAreLive) {
  const std::string after = std::string(kBase) +
                            "SchedulerParameters=bf_window=60\n"
                            "SlurmctldDebug=debug\n";
  EXPECT_EQ(Changes(kBase, after, true),
            (std::vector<std::string>{"SchedulerParameters: (unset) -> bf_window=60",
                                      "SlurmctldDebug: (unset) -> debug"}));
  EXPECT_TRUE(Changes(kBase, after, false).empty());
}

TEST(ConfigDiff, NodesPartitionsTopologyAndTheKeysTheControllerReadsAsItGoesAreLive) {
  const std::string after =
      "ClusterName=x\n"
      "SlurmctldHost=h(127.0.0.1)\n"
      "NodeName=n1 CPUs=8\n"
      "NodeName=n3 CPUs=4\n"
      "PartitionName=p Nodes=ALL Default=YES MaxTime=60\n"
      "KillWait=5\n"
      "PriorityWeightAge=100\n"
      "AccountingStorageEnforce=limits\n";
  EXPECT_EQ(Changes(kBase, after, true),
            (std::vector<std::string>{"AccountingStorageEnforce: (unset) -> limits",
                                      "KillWait: (unset) -> 5", "PriorityWeightAge: (unset) -> 100",
                                      "node n3 added", "node n1 changed", "node n2 removed",
                                      "partition p changed"}));
  EXPECT_TRUE(Changes(kBase, after, false).empty());
}

TEST(ConfigDiff, WhatTheDaemonSetUpAtItsStartAndSlurmdTimeoutNeedARestart) {
  const std::string after = std::string(kBase) +
                            "SlurmctldPort=7000\n"
                            "SlurmdTimeout=30\n"
                            "StateStorageType=state/pgsql\n"
                            "AccountingStorageHost=db\n"
                            "MetricsPort=9100\n";
  EXPECT_EQ(Changes(kBase, after, false),
            (std::vector<std::string>{
                "AccountingStorageHost: (unset) -> db", "MetricsPort: (unset) -> 9100",
                "SlurmctldPort: (unset) -> 7000", "SlurmdTimeout: (unset) -> 30",
                "StateStorageType: (unset) -> state/pgsql"}));
  EXPECT_TRUE(Changes(kBase, after, true).empty());
}

TEST(ConfigDiff, ManyNodesChangedMakeOneLine) {
  const std::string after =
      "ClusterName=x\n"
      "SlurmctldHost=h(127.0.0.1)\n"
      "NodeName=n[1-2] CPUs=4 Feature=ib\n"
      "NodeName=n[3-5] CPUs=4\n"
      "PartitionName=p Nodes=ALL Default=YES\n";
  EXPECT_EQ(Changes(kBase, after, true),
            (std::vector<std::string>{"node n[3-5] added", "node n[1-2] changed",
                                      "partition p changed"}));
}

TEST(ConfigDiff, AgentKeysAndAccountLinesSayWhereTheyTakeEffect) {
  const std::string before = std::string(kBase) + "AccountName=a Fairshare=1\n";
  const std::string after = std::string(kBase) +
                            "AccountName=a Fairshare=5\n"
                            "AccountName=b\n"
                            "Prolog=/etc/sluice/prolog\n";
  EXPECT_EQ(Changes(before, after, true),
            (std::vector<std::string>{
                "Prolog: (unset) -> /etc/sluice/prolog (the agents take it when restarted)",
                "account b added",
                "account a changed (the association database keeps it: use sacctmgr)"}));
}

}  // namespace
}  // namespace sluice::ctld
