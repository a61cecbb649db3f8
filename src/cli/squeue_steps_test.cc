#include "cli/squeue_steps.h"

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "cli/squeue.h"

namespace sluice {
namespace {

class StepsApi : public FakeApi {
 public:
  GetStepsReply steps;
  std::vector<GetStepsRequest> queries;
  Expected<GetStepsReply> GetSteps(const GetStepsRequest& req) override {
    queries.push_back(req);
    if (!fail.ok()) return fail;
    return steps;
  }
};

StepInfo Step(int64_t job, int step, const std::string& name, std::vector<std::string> nodes,
              int64_t start, uint32_t uid = 0, const std::string& user = "root") {
  StepInfo s;
  s.set_job_id(job);
  s.set_step_id(step);
  s.set_name(name);
  s.set_uid(uid);
  s.set_user(user);
  s.set_partition("gpu");
  s.set_start_time(start);
  for (auto& n : nodes) s.add_nodes(n);
  s.set_ntasks(4);
  s.set_ncpus(8);
  s.set_time_limit_min(60);
  s.set_state("RUNNING");
  return s;
}

class SqueueStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t.env.connect = [this]() -> Expected<ClientApiInterface*> {
      return static_cast<ClientApiInterface*>(&api);
    };
    t.clock.Set(1'000'000'000);
    *api.steps.add_steps() = Step(13, 1, "python", {"node02", "node01"}, 1'000'000'000 - 65);
    *api.steps.add_steps() = Step(12, 0, "hostname", {"node03"}, 1'000'000'000 - 5, 1000, "alice");
    *api.steps.add_steps() = Step(13, 0, "bash", {"node01"}, 1'000'000'000 - 3725);
  }
  int Run(std::vector<std::string> args) { return RunSqueue(args, t.env); }
  TestCli t;
  StepsApi api;
};

TEST_F(SqueueStepsTest, DefaultStepFormatMatchesSlurm) {
  EXPECT_EQ(Run({"-s"}), 0) << t.err.str();
  EXPECT_EQ(t.out.str(),
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "           12.0 hostname       gpu    alice      0:05 node03\n"
            "           13.0     bash       gpu     root   1:02:05 node01\n"
            "           13.1   python       gpu     root      1:05 node[01-02]\n");
  EXPECT_EQ(t.err.str(), "");
}

TEST_F(SqueueStepsTest, StepListJobsUsersAndCustomFormat) {
  EXPECT_EQ(Run({"--steps=13.1,12", "-h", "-o", "%i|%A|%C|%U|%l"}), 0) << t.err.str();
  EXPECT_EQ(t.out.str(), "12.0|4|8|1000|1:00:00\n13.1|4|8|0|1:00:00\n");
  ASSERT_EQ(api.queries.size(), 1u);
  EXPECT_EQ(api.queries[0].job_ids_size(), 0);
  ASSERT_EQ(api.queries[0].steps_size(), 2);  // the controller filters
  EXPECT_EQ(api.queries[0].steps(0).job_id(), 13);
  EXPECT_EQ(api.queries[0].steps(0).step_id(), 1);
  EXPECT_EQ(api.queries[0].steps(1).step_id(), -1);
  t.out.str("");
  EXPECT_EQ(Run({"-s", "-h", "-u", "root", "-j", "13", "-o", "%i %j"}), 0);
  EXPECT_EQ(t.out.str(), "13.0 bash\n13.1 python\n");
  EXPECT_EQ(api.queries.back().uids_size(), 1);
  EXPECT_EQ(api.queries.back().job_ids_size(), 1);
  t.out.str("");
  EXPECT_EQ(Run({"-s", "-O", "StepId,NodeList"}), 0) << t.err.str();
  EXPECT_NE(t.out.str().find("STEPID"), std::string::npos) << t.out.str();
  EXPECT_NE(t.out.str().find("node[01-02]"), std::string::npos) << t.out.str();
}

TEST_F(SqueueStepsTest, BadStepIdsFormatsAndErrorsFailClearly) {
  EXPECT_EQ(Run({"--steps=12.x"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid job step id: 12.x\n");
  t.err.str("");
  EXPECT_EQ(Run({"-s", "-o", "%i %Y"}), 1);
  EXPECT_EQ(t.err.str(), "squeue: error: Invalid job step format specification: Y\n");
  t.err.str("");
  api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({"-s"}), 1);
  EXPECT_EQ(t.err.str(),
            "slurm_get_job_steps error: Unable to contact slurm controller (connect failure)\n");
}

TEST_F(SqueueStepsTest, NoStepsPrintsOnlyTheHeader) {
  api.steps.clear_steps();
  EXPECT_EQ(Run({"-s"}), 0);
  EXPECT_EQ(t.out.str(), "         STEPID     NAME PARTITION     USER      TIME NODELIST\n");
}

}  // namespace
}  // namespace sluice
