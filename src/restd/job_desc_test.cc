#include "restd/job_desc.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

using nlohmann::json;

TEST(JobDesc, PropertiesBecomeSbatchOptions) {
  auto call = SbatchCallFor({{"name", "x"},
                             {"nodes", "2-3"},
                             {"tasks", 4},
                             {"hold", true},
                             {"exclusive", true},
                             {"requeue", true},
                             {"no_kill", false},
                             {"memory_per_node", 1024},
                             {"environment", {{"A", "1"}}}});
  ASSERT_TRUE(call.ok()) << call.status().message();
  // In the keys' order (nlohmann::json objects are sorted).
  EXPECT_EQ(call->args,
            (std::vector<std::string>{"--exclusive", "--hold", "--mem=1024", "--job-name=x",
                                      "--nodes=2-3", "--requeue", "--ntasks=4"}));
  EXPECT_EQ(call->environ, (std::map<std::string, std::string>{{"A", "1"}}));
  EXPECT_EQ(call->cwd, "/");
  EXPECT_EQ(SbatchCallFor({{"nodes", 3}, {"environment", json::object()}})->args,
            std::vector<std::string>{"--nodes=3"});
  EXPECT_EQ(SbatchCallFor({{"nodes", json::array({5})}, {"environment", json::object()}})->args,
            std::vector<std::string>{"--nodes=5"});
}

TEST(JobDesc, ArgvIsTheScriptsArguments) {
  auto call = SbatchCallFor(
      {{"argv", json::array({"--lr", "0.1", "a b"})}, {"environment", json::object()}});
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_TRUE(call->args.empty());
  EXPECT_EQ(call->script_args, (std::vector<std::string>{"--lr", "0.1", "a b"}));
}

TEST(JobDesc, WrongTypesAndUnknownFieldsAreNamed) {
  const json env = json::object();
  auto check = [&](json job, const std::string& message) {
    job["environment"] = env;
    auto call = SbatchCallFor(job);
    ASSERT_FALSE(call.ok()) << job.dump();
    EXPECT_EQ(call.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(call.status().message(), message);
  };
  check({{"hold", "yes"}}, "job.hold must be true or false");
  check({{"nodes", json::array({1, 2, 3})}}, "job.nodes must be [min] or [min, max]");
  check({{"time_limit", 1.5}}, "job.time_limit must be an integer");
  check({{"name", json::array()}}, "job.name must be a string");
  check({{"burst_buffer", "x"}}, "job.burst_buffer is not a field Sluice knows");
  check({{"argv", "a b"}}, "job.argv must be an array of strings");
  check({{"argv", json::array({"a", 2})}}, "job.argv must be an array of strings");
  EXPECT_EQ(SbatchCallFor({{"environment", {{"A", 1}}}}).status().message(),
            "job.environment.A must be a string");
  EXPECT_FALSE(SbatchCallFor(json::array()).ok());
}

TEST(JobDesc, UpdatesBecomeScontrolCalls) {
  auto calls = ScontrolCallsFor(7, {{"time_limit", 30}, {"comment", "c"}, {"hold", false}});
  ASSERT_TRUE(calls.ok());
  ASSERT_EQ(calls->size(), 2u);
  EXPECT_EQ((*calls)[0],
            (std::vector<std::string>{"update", "JobId=7", "Comment=c", "TimeLimit=30"}));
  EXPECT_EQ((*calls)[1], (std::vector<std::string>{"release", "7"}));
  EXPECT_EQ(ScontrolCallsFor(7, {{"hold", true}})->at(0), (std::vector<std::string>{"hold", "7"}));
  EXPECT_FALSE(ScontrolCallsFor(7, json::object()).ok());
  EXPECT_FALSE(ScontrolCallsFor(7, {{"partition", "p"}}).ok());
  EXPECT_FALSE(ScontrolCallsFor(7, {{"nice", "high"}}).ok());
}

}  // namespace
}  // namespace sluice
