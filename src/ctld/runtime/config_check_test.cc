#include "ctld/runtime/config_check.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

constexpr char kBase[] =
    "ClusterName=x\n"
    "SlurmctldHost=h(127.0.0.1)\n"
    "NodeName=n[1-2] CPUs=4\n"
    "PartitionName=p Nodes=ALL Default=YES\n";

std::vector<ConfigProblem> Check(const std::string& text) {
  auto config = ParseConfig(text, "sluice.conf");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? CheckControllerConfig(*config) : std::vector<ConfigProblem>{};
}

TEST(ConfigCheck, AGoodConfigHasNoProblems) { EXPECT_TRUE(Check(kBase).empty()); }

TEST(ConfigCheck, EachProblemNamesItsKeyAndLine) {
  const std::string text = std::string(kBase) +
                           "# SchedulerType=sched/builtin is fine, this comment is not a line\n"
                           "SlurmctldDebug=loud\n"
                           "PrivateData=jobs,bogus  # the second item\n"
                           "schedulertype=sched/foo\n";
  auto problems = Check(text);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].key, "SlurmctldDebug");
  EXPECT_EQ(WhereInConfig("sluice.conf", text, problems[0]),
            "sluice.conf:6: SlurmctldDebug: invalid debug level: loud");
  EXPECT_EQ(WhereInConfig("sluice.conf", text, problems[1]),
            "sluice.conf:7: PrivateData: unknown item 'bogus'");
  EXPECT_EQ(WhereInConfig("sluice.conf", text, problems[2]),
            "sluice.conf:8: SchedulerType=sched/foo is not supported (sched/backfill or "
            "sched/builtin)");
}

TEST(ConfigCheck, SchedulerParametersValuesAreChecked) {
  auto problems = Check(std::string(kBase) + "SchedulerParameters=bf_order=tallest\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "SchedulerParameters");
  EXPECT_EQ(WhereInConfig("c", "x=1\n", problems[0]).rfind("c: SchedulerParameters", 0), 0u);
}

}  // namespace
}  // namespace sluice::ctld
