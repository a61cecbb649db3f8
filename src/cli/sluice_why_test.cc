// sluice why against a fake API: one line per job, what is asked of the controller, errors.
#include "cli/sluice_why.h"

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace sluice {
namespace {

class SluiceWhyTest : public ::testing::Test {
 protected:
  SluiceWhyTest() {
    JobInfo* p = t.api.jobs.add_jobs();
    p->set_job_id(812);
    p->mutable_spec()->set_name("train");
    p->set_state(JOB_PENDING);
    p->set_reason("Resources");
    p->set_explanation("needs 2 nodes with 8 free GPUs each (16 GPUs)");
    JobInfo* r = t.api.jobs.add_jobs();
    r->set_job_id(811);
    r->mutable_spec()->set_name("prep");
    r->set_state(JOB_RUNNING);
    r->set_start_time(1764469573);
    r->add_alloc()->set_node("gpu1");
    r->add_alloc()->set_node("gpu2");
    JobInfo* d = t.api.jobs.add_jobs();
    d->set_job_id(810);
    d->mutable_spec()->set_name("eval");
    d->set_state(JOB_FAILED);
    d->set_exit_code(1);
  }
  int Run(std::vector<std::string> args) { return RunSluiceWhy(args, t.env); }
  TestCli t;
};

TEST_F(SluiceWhyTest, OneLinePerJobFromTheExplanation) {
  EXPECT_EQ(Run({"812,811", "810"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "Job 812 (train) is PENDING (Resources): needs 2 nodes with 8 free GPUs each (16 GPUs)\n"
      "Job 811 (prep) is RUNNING on gpu[1-2] since 2025-11-30T02:26:13\n"
      "Job 810 (eval) is FAILED, exit code 1:0\n");
  ASSERT_EQ(t.api.job_queries.size(), 1u);
  EXPECT_TRUE(t.api.job_queries[0].explain());
  EXPECT_EQ(t.api.job_queries[0].job_ids_size(), 3);
}

TEST_F(SluiceWhyTest, BadOrUnknownIdsAndNoIdFail) {
  EXPECT_EQ(Run({"12x"}), 1);
  EXPECT_EQ(t.err.str(), "sluice: error: Invalid job id specified: 12x\n");
  t.err.str("");
  EXPECT_EQ(Run({"999"}), 1);
  EXPECT_EQ(t.err.str(), "sluice: error: Invalid job id specified\n");
  t.err.str("");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(), "Usage: sluice why JOBID[,JOBID...] [JOBID...]\n");
  t.err.str("");
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({"812"}), 1);
  EXPECT_EQ(t.err.str(), "sluice: error: Unable to contact slurm controller (connect failure)\n");
}

}  // namespace
}  // namespace sluice
