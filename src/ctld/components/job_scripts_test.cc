// Batch scripts and environments live in the state store, not in the job records
// (job_scripts.h): a launch and `scontrol show job -d` still get them, in the same drain as
// the submission and after a restart; an array stores one for all its tasks; the last
// purged job deletes it; records written by an older version are moved out on load.
#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

class JobScriptsTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return testing::SmallCluster({"node01"}, "batch"); }

  static SubmitRequest Request(const std::string& script, const std::string& array = "") {
    SubmitRequest r;
    r.mutable_spec()->set_script(script);
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->add_env("PROJECT=sluice");
    r.mutable_spec()->set_array_spec(array);
    return r;
  }
  int64_t Submit(const SubmitRequest& r) {
    auto rep = ctl_->Submit({1000, 1000}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    return rep.ok() ? rep->job_id() : -1;
  }
  const BatchLaunch& LastLaunch() {
    EXPECT_FALSE(link_.launches.empty());
    return link_.launches.back().req.launch();
  }
  void CancelAll(int64_t id) {
    CancelRequest c;
    c.add_job_ids(id);
    ctl_->Cancel({0, 0}, c);
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void PurgeFinished() {
    clock_.AdvanceMs(3'600'000);  // past MinJobAge
    ctl_->Tick();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
};

TEST_F(JobScriptsTest, LaunchInTheSubmissionsDrainCarriesScriptAndEnvironment) {
  int64_t id = Submit(Request("#!/bin/sh\necho one\n"));
  ctl_->SchedulePass();  // before any commit: the script is not in the store yet
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  EXPECT_EQ(LastLaunch().job_id(), id);
  EXPECT_EQ(LastLaunch().job().spec().script(), "#!/bin/sh\necho one\n");
  ASSERT_EQ(LastLaunch().env_size(), 1);
  EXPECT_EQ(LastLaunch().env(0), "PROJECT=sluice");
  EXPECT_EQ(LastLaunch().job().spec().env_size(), 0);  // sent once, not twice
  EXPECT_TRUE(ctl_->jobs().Find(id)->spec().script().empty());
  EXPECT_EQ(store_.scripts_stored(), 1u);
}

TEST_F(JobScriptsTest, AJobLaunchedAfterARestartGetsItsScriptFromTheStore) {
  SubmitRequest r = Request("#!/bin/sh\necho after restart\n");
  r.mutable_spec()->set_hold(true);
  int64_t id = Submit(r);
  ASSERT_TRUE(ctl_->Commit().ok());
  StartController();
  Register("node01");
  UpdateJobRequest release;
  release.add_job_ids(id);
  release.set_action(JOB_ACTION_RELEASE);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, release).ok());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  EXPECT_EQ(LastLaunch().job().spec().script(), "#!/bin/sh\necho after restart\n");
  EXPECT_EQ(LastLaunch().env(0), "PROJECT=sluice");
  GetJobsRequest q;
  q.add_job_ids(id);
  q.set_with_script_env(true);
  auto full = ctl_->GetJobs(q);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->jobs(0).spec().script(), "#!/bin/sh\necho after restart\n");
}

TEST_F(JobScriptsTest, PropagatedLimitsAreStoredWithTheScriptAndReachOnlyTheLaunch) {
  SubmitRequest r = Request("#!/bin/sh\nulimit -n\n");
  r.mutable_spec()->set_hold(true);
  ResourceLimit* l = r.mutable_spec()->add_rlimits();
  l->set_resource(7);  // RLIMIT_NOFILE
  l->set_soft(512);
  int64_t id = Submit(r);
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id)->spec().rlimits_size(), 0);  // not in the record
  GetJobsRequest q;
  q.add_job_ids(id);
  q.set_with_script_env(true);
  auto listed = ctl_->GetJobs(q);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->jobs(0).spec().rlimits_size(), 0);  // queries never carry them
  StartController();                                    // from the store
  Register("node01");
  UpdateJobRequest release;
  release.add_job_ids(id);
  release.set_action(JOB_ACTION_RELEASE);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, release).ok());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  ASSERT_EQ(LastLaunch().job().spec().rlimits_size(), 1);
  EXPECT_EQ(LastLaunch().job().spec().rlimits(0).resource(), 7);
  EXPECT_EQ(LastLaunch().job().spec().rlimits(0).soft(), 512u);
}

TEST_F(JobScriptsTest, AnArrayStoresOneScriptDeletedWithItsLastTask) {
  int64_t first = Submit(Request("#!/bin/sh\necho task\n", "0-3"));
  int64_t other = Submit(Request("#!/bin/sh\necho other\n"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(store_.scripts_stored(), 2u);
  GetJobsRequest q;
  q.add_job_ids(first + 3);  // the last task reads its array's script
  q.set_with_script_env(true);
  EXPECT_EQ(ctl_->GetJobs(q)->jobs(0).spec().script(), "#!/bin/sh\necho task\n");

  CancelRequest some;  // three tasks end and are purged: the fourth still needs it
  for (int64_t t = first; t < first + 3; ++t) some.add_exact_job_ids(t);
  ctl_->Cancel({0, 0}, some);
  ASSERT_TRUE(ctl_->Commit().ok());
  PurgeFinished();
  ASSERT_EQ(ctl_->jobs().Find(first), nullptr);
  EXPECT_EQ(store_.scripts_stored(), 2u);
  EXPECT_EQ(ctl_->GetJobs(q)->jobs(0).spec().script(), "#!/bin/sh\necho task\n");

  CancelAll(first + 3);
  CancelAll(other);
  PurgeFinished();
  EXPECT_EQ(store_.scripts_stored(), 0u);
}

TEST_F(JobScriptsTest, RecordsOfAnOlderVersionHaveTheirScriptMovedOut) {
  JobInfo old;  // as a controller before JobScripts wrote it: script inside the record
  old.set_job_id(41);
  old.set_state(JOB_PENDING);
  old.set_priority(1);
  old.set_uid(1000);
  old.set_user("u1000");
  old.mutable_spec()->set_script("#!/bin/sh\necho old\n");
  old.mutable_spec()->add_env("OLD=1");
  old.mutable_spec()->set_partition("batch");
  old.mutable_spec()->set_min_nodes(1);
  old.mutable_spec()->set_ntasks(1);
  old.mutable_spec()->set_cpus_per_task(1);
  storage::WriteBatch b;
  b.PutJob(old);
  ASSERT_TRUE(store_.Write(b).ok());
  StartController();
  Register("node01");  // commits: the record is written again, without its script
  auto loaded = store_.LoadAll();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->jobs.size(), 1u);
  EXPECT_TRUE(loaded->jobs[0].spec().script().empty());
  EXPECT_EQ(loaded->jobs[0].spec().env_size(), 0);
  auto script = store_.LoadScript(41);
  ASSERT_TRUE(script.ok() && script->has_value());
  EXPECT_EQ((*script)->script(), "#!/bin/sh\necho old\n");
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  EXPECT_EQ(LastLaunch().job().spec().script(), "#!/bin/sh\necho old\n");
  EXPECT_EQ(LastLaunch().env(0), "OLD=1");
}

TEST_F(JobScriptsTest, LimitsInARecordJoinTheScriptTheStoreAlreadyHolds) {
  // As the version before limits moved: script and environment in the store, the
  // propagated limits still in the record. Loading it must keep the stored script.
  JobInfo old;
  old.set_job_id(42);
  old.set_state(JOB_PENDING);
  old.set_priority(1);
  old.set_uid(1000);
  old.set_user("u1000");
  old.mutable_spec()->set_partition("batch");
  old.mutable_spec()->set_min_nodes(1);
  old.mutable_spec()->set_ntasks(1);
  old.mutable_spec()->set_cpus_per_task(1);
  ResourceLimit* l = old.mutable_spec()->add_rlimits();
  l->set_resource(7);
  l->set_soft(256);
  JobScript stored;
  stored.set_script("#!/bin/sh\necho kept\n");
  stored.add_env("KEPT=1");
  storage::WriteBatch b;
  b.PutJob(old);
  b.PutScript(42, stored);
  ASSERT_TRUE(store_.Write(b).ok());
  StartController();
  Register("node01");  // commits: the record is written again, without its limits
  auto loaded = store_.LoadAll();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->jobs.size(), 1u);
  EXPECT_EQ(loaded->jobs[0].spec().rlimits_size(), 0);
  auto script = store_.LoadScript(42);
  ASSERT_TRUE(script.ok() && script->has_value());
  EXPECT_EQ((*script)->script(), "#!/bin/sh\necho kept\n");
  EXPECT_EQ((*script)->rlimits_size(), 1);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  EXPECT_EQ(LastLaunch().job().spec().script(), "#!/bin/sh\necho kept\n");
  EXPECT_EQ(LastLaunch().env(0), "KEPT=1");
  ASSERT_EQ(LastLaunch().job().spec().rlimits_size(), 1);
  EXPECT_EQ(LastLaunch().job().spec().rlimits(0).soft(), 256u);
}

TEST_F(JobScriptsTest, ACleanStartDeletesTheScriptsOfTheJobsItArchives) {
  Submit(Request("#!/bin/sh\necho gone\n", "0-1"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(store_.scripts_stored(), 1u);
  ctl_.reset();
  ctl_ = std::make_unique<Controller>(MakeConfig(), &clock_, &store_, &link_,
                                      SchedDeps{&sched_, testing::FakeFeasible}, MakeOptions());
  ASSERT_TRUE(ctl_->Load(/*clean_start=*/true).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(store_.scripts_stored(), 0u);
  EXPECT_TRUE(store_.LoadAll()->jobs.empty());
}

TEST_F(JobScriptsTest, ACommitTheStoreRefusedIsWrittenWithTheNextOne) {
  int64_t id = Submit(Request("#!/bin/sh\necho retry\n"));
  store_.FailNextWrites(1);
  EXPECT_FALSE(ctl_->Commit().ok());
  EXPECT_EQ(store_.scripts_stored(), 0u);
  ASSERT_TRUE(ctl_->Commit().ok());  // the failed commit's changes are still to be written
  EXPECT_EQ(store_.scripts_stored(), 1u);
  EXPECT_EQ((*store_.LoadScript(id))->script(), "#!/bin/sh\necho retry\n");
}

}  // namespace
}  // namespace sluice::ctld
