#include "ctld/components/launch_builder.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

TEST(ExpandOutputPath, DefaultsPatternsAbsolutePathsAndNone) {
  JobInfo job;
  job.set_job_id(42);
  job.set_user("alice");
  job.mutable_spec()->set_name("train");
  EXPECT_EQ(ExpandOutputPath("", job, "n1", "/home/alice"), "/home/alice/slurm-42.out");
  EXPECT_EQ(ExpandOutputPath("out.%j.%u.%%", job, "n1", "/w/"), "/w/out.42.alice.%");
  EXPECT_EQ(ExpandOutputPath("/abs/%x.log", job, "n1", "/w"), "/abs/train.log");
  EXPECT_EQ(ExpandOutputPath("none", job, "n1", "/w"), "/dev/null");
  job.set_array_job_id(40);
  job.set_array_task_id(2);
  EXPECT_EQ(ExpandOutputPath("", job, "n1", "/w"), "/w/slurm-40_2.out");
}

}  // namespace
}  // namespace sluice::ctld
