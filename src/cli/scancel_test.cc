#include "cli/scancel.h"

#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"

namespace sluice {
namespace {

class ScancelTest : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  int Run(std::vector<std::string> args) { return RunScancel(args, t.env); }
  void Result(int64_t id, int code, const char* msg) {
    CancelResult* r = t.api.cancel_reply.add_results();
    r->set_job_id(id);
    r->set_code(code);
    r->set_message(msg);
  }
  TestCli t;
};

TEST_F(ScancelTest, CancelsIdsSilently) {
  Result(30, 0, "");
  EXPECT_EQ(Run({"30", "31,32"}), 0);
  EXPECT_EQ(t.out.str() + t.err.str(), "");
  ASSERT_EQ(t.api.cancels.size(), 1u);
  EXPECT_EQ(t.api.cancels[0].job_ids_size(), 3);
  EXPECT_EQ(t.api.cancels[0].signal(), 0);
}

TEST_F(ScancelTest, UnknownJobSilentUnlessVerbose) {
  Result(999999, static_cast<int>(Code::kNotFound), "Invalid job id specified");
  EXPECT_EQ(Run({"999999"}), 0);
  EXPECT_EQ(t.err.str(), "");
  EXPECT_EQ(Run({"-v", "999999"}), 0);
  EXPECT_EQ(t.err.str(),
            "scancel: Terminating job 999999\n"
            "scancel: error: Kill job error on job id 999999: Invalid job id specified\n");
}

// JOB.STEP names one step: sent as a step (never as the job), with the signal, and its
// errors name the step.
TEST_F(ScancelTest, JobDotStepCancelsThatStepOnly) {
  EXPECT_EQ(Run({"-s", "USR1", "30.2", "31"}), 0);
  ASSERT_EQ(t.api.cancels.size(), 1u);
  const CancelRequest& req = t.api.cancels[0];
  ASSERT_EQ(req.steps_size(), 1);
  EXPECT_EQ(req.steps(0).job_id(), 30);
  EXPECT_EQ(req.steps(0).step_id(), 2);
  ASSERT_EQ(req.job_ids_size(), 1);
  EXPECT_EQ(req.job_ids(0), 31);
  EXPECT_EQ(req.signal(), 10);
  t.api.cancels.clear();
  CancelResult* r = t.api.cancel_reply.add_results();
  r->set_job_id(40);
  r->set_step_id(0);
  r->set_code(static_cast<int>(Code::kPermissionDenied));
  r->set_message("Access/permission denied");
  EXPECT_NE(Run({"40.0"}), 0);
  EXPECT_EQ(t.err.str(),
            "scancel: error: Kill job error on job step id 40.0: Access/permission denied\n");
  ASSERT_EQ(t.api.cancels.size(), 1u);
  EXPECT_EQ(t.api.cancels[0].job_ids_size(), 0);
  for (const char* bad : {"40.", ".1", "40.x", "40.-1"}) {
    t.err.str("");
    EXPECT_NE(Run({bad}), 0) << bad;
  }
}

TEST_F(ScancelTest, OtherUsersJobIsDenied) {
  Result(11, 2002, "Access/permission denied");
  EXPECT_EQ(Run({"11"}), 210);
  EXPECT_EQ(t.err.str(), "scancel: error: Kill job error on job id 11: Access/permission denied\n");
  t.api.cancel_reply.mutable_results(0)->set_code(static_cast<int>(Code::kPermissionDenied));
  t.err.str("");
  EXPECT_EQ(Run({"11"}), 210);
}

TEST_F(ScancelTest, SignalAfterPositional) {
  EXPECT_EQ(Run({"123", "--signal", "USR2"}), 0);
  EXPECT_EQ(Run({"-s", "KILL", "-b", "124"}), 0);
  EXPECT_EQ(t.api.cancels[0].signal(), 12);
  EXPECT_EQ(t.api.cancels[1].signal(), 9);
  EXPECT_TRUE(t.api.cancels[1].batch_only());
  EXPECT_EQ(Run({"-v", "--signal=USR1", "5"}), 0);
  EXPECT_EQ(t.err.str(), "scancel: Signal 10 to job 5\n");
}

TEST_F(ScancelTest, FiltersSelectJobs) {
  EXPECT_EQ(Run({"-u", "root", "-t", "PD", "-p", "gpu"}), 0);
  ASSERT_EQ(t.api.cancels.size(), 1u);
  std::vector<int64_t> ids(t.api.cancels[0].job_ids().begin(), t.api.cancels[0].job_ids().end());
  EXPECT_EQ(ids, (std::vector<int64_t>{4, 16, 14, 15}));
  EXPECT_EQ(Run({"-n", "held"}), 0);
  EXPECT_EQ(t.api.cancels[1].job_ids_size(), 1);
  EXPECT_EQ(t.api.cancels[1].job_ids(0), 15);
  EXPECT_EQ(Run({"-u", "alice"}), 0);  // no jobs: nothing sent
  EXPECT_EQ(t.api.cancels.size(), 2u);
  EXPECT_EQ(Run({"--me", "-w", "node02"}), 0);
  EXPECT_EQ(t.api.cancels[2].job_ids(0), 13);
}

TEST_F(ScancelTest, Errors) {
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(), "scancel: error: No job identification provided\n");
  t.err.str("");
  EXPECT_EQ(Run({"--bogus"}), 1);
  EXPECT_EQ(
      t.err.str(),
      "scancel: unrecognized option '--bogus'\nTry \"scancel --help\" for more information\n");
  t.err.str("");
  EXPECT_EQ(Run({"12_x"}), 1);
  EXPECT_EQ(t.err.str(), "scancel: error: Invalid job id: 12_x\n");
  t.err.str("");
  EXPECT_EQ(Run({"abc"}), 1);
  EXPECT_EQ(t.err.str(), "scancel: error: Invalid job id: abc\n");
  t.err.str("");
  EXPECT_EQ(Run({"-s", "NOPE", "1"}), 1);
  EXPECT_EQ(t.err.str(), "scancel: error: Invalid job signal: NOPE\n");
  t.err.str("");
  EXPECT_EQ(Run({"-t", "WEIRD"}), 1);
  EXPECT_EQ(t.err.str(), "scancel: error: Invalid job state specified: WEIRD\n");
  EXPECT_TRUE(t.api.cancels.empty());
  t.err.str("");
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({"7"}), 1);
  EXPECT_EQ(t.err.str(),
            "scancel: error: Kill job error on job id 7: Unable to contact slurm controller "
            "(connect failure)\n");
}

TEST(SlurmErrno, Mapping) {
  EXPECT_EQ(SlurmErrno(2002, ""), 2002);
  EXPECT_EQ(SlurmErrno(5, "Access/permission denied"), 2002);
  EXPECT_EQ(SlurmErrno(static_cast<int>(Code::kNotFound), "gone"), 2017);
  EXPECT_EQ(SlurmErrno(static_cast<int>(Code::kInternal), "x"), 1);
}

TEST_F(ScancelTest, GetoptOrderAbbreviationsAndDoubleDash) {
  EXPECT_EQ(Run({"30", "--sig=USR1", "31", "--bat"}), 0);
  ASSERT_EQ(t.api.cancels.size(), 1u);
  EXPECT_EQ(t.api.cancels[0].job_ids_size(), 2);
  EXPECT_EQ(t.api.cancels[0].signal(), 10);
  EXPECT_TRUE(t.api.cancels[0].batch_only());
  EXPECT_EQ(Run({"-s", "KILL", "--", "40"}), 0);
  ASSERT_EQ(t.api.cancels.size(), 2u);
  EXPECT_EQ(t.api.cancels[1].signal(), 9);
  EXPECT_EQ(Run({"40", "--s", "KILL"}), 1);
  EXPECT_EQ(t.err.str(),
            "scancel: option '--s' is ambiguous; possibilities: '--signal' '--state' "
            "'--sibling'\nTry \"scancel --help\" for more information\n");
  EXPECT_EQ(t.api.cancels.size(), 2u);
}

}  // namespace
}  // namespace sluice
