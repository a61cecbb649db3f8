// Controller tests for job arrays (ids, throttle, cancel) and dependencies (the
// dependency state machine, durability), with the fakes of test_fakes.h.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/array_spec.h"
#include "common/dependency_spec.h"
#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "storage/sqlite_state_store.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;

Config TestConfig() {
  Config c;
  c.slurmd_timeout_s = 300;
  for (const char* name : {"node01", "node02"}) {
    NodeConfig n;
    n.name = name;
    n.cpus = 4;
    n.real_memory_mb = 1000;
    c.nodes.push_back(n);
  }
  PartitionConfig p;
  p.name = "gpu";
  p.nodes = {"node01", "node02"};
  p.is_default = true;
  p.max_time_min = 60;
  c.partitions.push_back(p);
  return c;
}

class ArrayDepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-arrdep-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Reopen();
    for (const char* n : {"node01", "node02"}) {
      RegisterNodeRequest r;
      r.set_node(n);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
    }
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void TearDown() override {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    ctl_.reset();
    store_.reset();
    store_ = std::move(storage::SqliteStateStore::Open(dir_ + "/state.db")).value();
    ControllerOptions o;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    ctl_ = std::make_unique<Controller>(TestConfig(), &clock_, store_.get(), &link_,
                                        SchedDeps{&sched_, testing::FakeFeasible}, o);
    ASSERT_TRUE(ctl_->Load(false).ok());
  }

  Expected<SubmitReply> TrySubmit(const std::string& array, const std::string& dep,
                                  const std::string& name = "job", int kill = 0) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/home/alice");
    r.mutable_spec()->set_name(name);
    r.mutable_spec()->set_array_spec(array);
    r.mutable_spec()->set_dependency(dep);
    r.mutable_spec()->set_kill_on_invalid_dep(kill);
    auto rep = ctl_->Submit({kAlice, kAlice}, r);
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep;
  }
  int64_t Submit(const std::string& array, const std::string& dep = "",
                 const std::string& name = "job", int kill = 0) {
    auto rep = TrySubmit(array, dep, name, kill);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id, int exit_code) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_exit_code(exit_code);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }
  int Running() {
    int n = 0;
    for (const auto& [id, j] : ctl_->jobs().jobs()) n += j.state() == JOB_RUNNING;
    return n;
  }

  std::string dir_;
  ManualClock clock_{1'700'000'000};
  testing::FakeAgentLink link_;
  testing::FirstFitScheduler sched_;
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<Controller> ctl_;
};

TEST_F(ArrayDepTest, ArrayTasksGetConsecutiveIds) {
  EXPECT_EQ(Submit(""), 1);
  int64_t a = Submit("1,3,5-7");
  EXPECT_EQ(a, 2);
  EXPECT_EQ(ctl_->next_job_id(), 7);
  std::vector<int64_t> tasks = {1, 3, 5, 6, 7};
  for (int i = 0; i < 5; ++i) {
    const JobInfo& t = Job(a + i);
    EXPECT_EQ(t.array_job_id(), a);
    EXPECT_EQ(t.array_task_id(), tasks[i]);
    EXPECT_EQ(t.array_task_count(), 5);
    EXPECT_EQ(t.array_task_min(), 1);
    EXPECT_EQ(t.array_task_max(), 7);
    EXPECT_EQ(t.array_task_step(), 0);
  }
  EXPECT_EQ(Job(1).array_job_id(), 0);
  GetJobsRequest q;
  q.add_job_ids(a);
  EXPECT_EQ(ctl_->GetJobs(q)->jobs_size(), 5);  // the array id names every task
  q.set_job_ids(0, a + 2);
  EXPECT_EQ(ctl_->GetJobs(q)->jobs_size(), 1);  // a task's own id names that task
  Reopen();
  EXPECT_EQ(Job(a + 4).array_task_id(), 7);
  EXPECT_EQ(Submit(""), 7);
}

// The ids GetJobs answers `q` with (none when it fails).
std::vector<int64_t> Ids(Controller& ctl, const GetJobsRequest& q) {
  std::vector<int64_t> out;
  auto reply = ctl.GetJobs(q);
  EXPECT_TRUE(reply.ok()) << reply.status().message();
  if (reply.ok()) {
    for (const JobInfo& j : reply->jobs()) out.push_back(j.job_id());
  }
  return out;
}

TEST_F(ArrayDepTest, ArrayTaskSelectorsSendOnlyTheTasksTheyName) {
  const int64_t plain = Submit("");
  const int64_t a = Submit("1,3,5-7");  // tasks 1 3 5 6 7 = jobs a..a+4
  auto ids = [&](const GetJobsRequest& q) { return Ids(*ctl_, q); };
  GetJobsRequest q;
  ArrayTaskSelector* sel = q.add_array_tasks();
  sel->set_array_job_id(a);
  sel->add_task_ids(5);
  sel->add_task_ids(7);
  sel->add_task_ids(9);  // no such task: left out
  EXPECT_EQ(ids(q), (std::vector<int64_t>{a + 2, a + 4}));
  // With job ids: both kinds are sent, a job both name once.
  q.add_job_ids(plain);
  q.add_job_ids(a + 2);
  EXPECT_EQ(ids(q), (std::vector<int64_t>{plain, a + 2, a + 4}));
  // The filters still apply to the tasks named.
  q.add_states(JOB_RUNNING);
  EXPECT_TRUE(ids(q).empty());
  // Not found only when no selector names an array or a job.
  GetJobsRequest unknown;
  unknown.add_array_tasks()->set_array_job_id(plain);  // a plain job is no array
  EXPECT_EQ(ctl_->GetJobs(unknown).status().code(), Code::kNotFound);
  unknown.add_array_tasks()->set_array_job_id(a);  // an array without the tasks named
  ASSERT_TRUE(ctl_->GetJobs(unknown).ok());
  EXPECT_EQ(ctl_->GetJobs(unknown)->jobs_size(), 0);
}

// Tasks are found at their place in a contiguous array, and by walking an array with
// steps; either way the reply is in job id order.
TEST_F(ArrayDepTest, ArrayTasksAreFoundWithOrWithoutGaps) {
  const int64_t dense = Submit("0-9");    // task T = job dense + T
  const int64_t steps = Submit("0-8:2");  // tasks 0 2 4 6 8 = jobs steps..steps+4
  auto ids = [&](int64_t array, std::vector<int64_t> tasks) {
    GetJobsRequest q;
    ArrayTaskSelector* sel = q.add_array_tasks();
    sel->set_array_job_id(array);
    for (int64_t t : tasks) sel->add_task_ids(t);
    return Ids(*ctl_, q);
  };
  EXPECT_EQ(ids(dense, {7, 2}), (std::vector<int64_t>{dense + 2, dense + 7}));
  EXPECT_EQ(ids(dense, {9, 10}), (std::vector<int64_t>{dense + 9}));
  EXPECT_EQ(ids(steps, {6, 0}), (std::vector<int64_t>{steps, steps + 3}));
  EXPECT_EQ(ids(steps, {3}), (std::vector<int64_t>{}));
}

TEST_F(ArrayDepTest, PendingTasksOfAnArrayCanComeAsOneRecord) {
  const int64_t a = Submit("0-5%2");  // tasks 0-5 = jobs a..a+5
  const int64_t plain = Submit("");
  Pass();  // tasks 0 and 1 run (throttle 2); the plain job runs too
  GetJobsRequest q;
  q.set_compress_pending_tasks(true);
  auto reply = ctl_->GetJobs(q);
  ASSERT_TRUE(reply.ok());
  std::vector<std::pair<int64_t, std::string>> got;
  for (const JobInfo& j : reply->jobs()) got.push_back({j.job_id(), j.array_task_str()});
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, std::string>>{
                     {a, ""}, {a + 1, ""}, {a + 2, "[2-5%2]"}, {plain, ""}}));
  // The filters choose the tasks first; a single pending task stays a plain record.
  q.add_array_tasks()->set_array_job_id(a);
  q.mutable_array_tasks(0)->add_task_ids(4);
  q.mutable_array_tasks(0)->add_task_ids(5);
  reply = ctl_->GetJobs(q);
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs_size(), 1);
  EXPECT_EQ(reply->jobs(0).job_id(), a + 4);
  EXPECT_EQ(reply->jobs(0).array_task_str(), "[4-5%2]");
  q.mutable_array_tasks(0)->clear_task_ids();
  q.mutable_array_tasks(0)->add_task_ids(3);
  reply = ctl_->GetJobs(q);
  ASSERT_EQ(reply->jobs_size(), 1);
  EXPECT_EQ(reply->jobs(0).array_task_str(), "");
  // Without the flag every task is a record of its own.
  GetJobsRequest all;
  EXPECT_EQ(ctl_->GetJobs(all)->jobs_size(), 7);
}

TEST_F(ArrayDepTest, RecordsCarryOnlyTheFieldsAsked) {
  const int64_t a = Submit("0-3%2", "", "sweep");
  GetJobsRequest q;
  q.set_compress_pending_tasks(true);
  q.mutable_fields()->add_paths("spec.name");
  q.mutable_fields()->add_paths("array_task_str");
  auto reply = ctl_->GetJobs(q);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_EQ(reply->jobs_size(), 1);
  JobInfo want;  // job_id and uid always (PrivateData filters on uid)
  want.set_job_id(a);
  want.set_uid(kAlice);
  want.mutable_spec()->set_name("sweep");
  want.set_array_task_str("[0-3%2]");  // the throttle comes from the job, not the record
  EXPECT_EQ(reply->jobs(0).DebugString(), want.DebugString());
  // Without a mask, the whole record (less script and environment).
  GetJobsRequest all;
  all.add_job_ids(a);
  reply = ctl_->GetJobs(all);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->jobs(0).spec().partition(), "gpu");
  EXPECT_EQ(reply->jobs(0).state(), JOB_PENDING);
  // A path that names no field is refused, by name.
  q.mutable_fields()->add_paths("spec.bogus");
  reply = ctl_->GetJobs(q);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(reply.status().message(),
            "Invalid field mask path 'spec.bogus': JobSpec has no field 'bogus'");
}

TEST_F(ArrayDepTest, LiveAccountingByIdNamesJobsAndWholeArrays) {
  const int64_t plain = Submit("");
  const int64_t a = Submit("0-2");  // jobs a..a+2
  const int64_t other = Submit("");
  auto ids = [&](std::vector<int64_t> named) {
    AcctJobsRequest q;
    for (int64_t id : named) q.add_job_ids(id);
    std::vector<int64_t> out;
    const AcctJobsReply reply = ctl_->AcctLive(q);
    for (const AcctJob& j : reply.jobs()) out.push_back(j.job_id());
    return out;
  };
  EXPECT_EQ(ids({other, a}), (std::vector<int64_t>{a, a + 1, a + 2, other}));
  EXPECT_EQ(ids({a + 1, a + 1}), (std::vector<int64_t>{a + 1}));  // a task by its own id, once
  EXPECT_EQ(ids({999}), (std::vector<int64_t>{}));
  EXPECT_EQ(ids({}), (std::vector<int64_t>{plain, a, a + 1, a + 2, other}));
  // By uid (sacct's default for a user), from the index of each user's jobs.
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_work_dir("/tmp");
  auto bobs = ctl_->Submit({kAlice + 1, kAlice + 1}, r);
  ASSERT_TRUE(bobs.ok()) << bobs.status().message();
  auto by_uid = [&](std::vector<uint32_t> uids, std::vector<int64_t> named) {
    AcctJobsRequest q;
    for (uint32_t u : uids) q.add_uids(u);
    for (int64_t id : named) q.add_job_ids(id);
    std::vector<int64_t> out;
    const AcctJobsReply reply = ctl_->AcctLive(q);
    for (const AcctJob& j : reply.jobs()) out.push_back(j.job_id());
    return out;
  };
  EXPECT_EQ(by_uid({kAlice + 1}, {}), (std::vector<int64_t>{bobs->job_id()}));
  EXPECT_EQ(by_uid({kAlice, kAlice + 1}, {}),
            (std::vector<int64_t>{plain, a, a + 1, a + 2, other, bobs->job_id()}));
  EXPECT_EQ(by_uid({kAlice + 1}, {plain, bobs->job_id()}), (std::vector<int64_t>{bobs->job_id()}));
  EXPECT_EQ(by_uid({4242}, {}), (std::vector<int64_t>{}));
}

TEST_F(ArrayDepTest, BadArraysAreRejected) {
  auto r = TrySubmit("0-1001", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), kMsgInvalidArray);
  EXPECT_FALSE(TrySubmit("3-1", "").ok());
  EXPECT_EQ(ctl_->next_job_id(), 1);
  EXPECT_TRUE(TrySubmit("0-1000", "").ok());
  EXPECT_EQ(ctl_->next_job_id(), 1002);
}

TEST_F(ArrayDepTest, ThrottleLimitsRunningTasks) {
  int64_t a = Submit("0-5%2");
  Pass();
  EXPECT_EQ(Running(), 2);
  EXPECT_EQ(Job(a).state(), JOB_RUNNING);
  EXPECT_EQ(Job(a + 1).state(), JOB_RUNNING);
  EXPECT_EQ(Job(a + 2).reason(), "JobArrayTaskLimit");
  EXPECT_EQ(Job(a + 2).array_throttle(), 2);
  End(a, 0);
  Pass();
  EXPECT_EQ(Running(), 2);
  EXPECT_EQ(Job(a + 2).state(), JOB_RUNNING);
  for (int64_t id : {a + 1, a + 2}) End(id, 0);
  Pass();
  for (int64_t id : {a + 3, a + 4}) End(id, 0);
  Pass();
  End(a + 5, 0);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(Job(a + i).state(), JOB_COMPLETED);
}

TEST_F(ArrayDepTest, CancelOneTaskOrTheWholeArray) {
  int64_t a = Submit("0-3");
  CancelRequest one;
  one.add_job_ids(a + 1);
  ctl_->Cancel({kAlice, kAlice}, one);
  EXPECT_EQ(Job(a + 1).state(), JOB_CANCELLED);
  EXPECT_EQ(Job(a).state(), JOB_PENDING);
  CancelRequest first;
  first.add_exact_job_ids(a);  // task 0 alone, though its id is the array's
  ctl_->Cancel({kAlice, kAlice}, first);
  EXPECT_EQ(Job(a).state(), JOB_CANCELLED);
  EXPECT_EQ(Job(a + 2).state(), JOB_PENDING);
  CancelRequest all;
  all.add_job_ids(a);
  CancelReply rep = ctl_->Cancel({kAlice, kAlice}, all);
  EXPECT_EQ(rep.results_size(), 2);  // the finished tasks are skipped
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Job(a + i).state(), JOB_CANCELLED);
}

TEST_F(ArrayDepTest, AfterOkChainRunsInOrder) {
  int64_t a = Submit("");
  int64_t b = Submit("", "afterok:" + std::to_string(a));
  int64_t c = Submit("", "afterok:" + std::to_string(b));
  EXPECT_EQ(Job(b).reason(), "Dependency");
  EXPECT_EQ(Job(b).eligible_time(), 0);
  Pass();
  EXPECT_EQ(Job(a).state(), JOB_RUNNING);
  EXPECT_EQ(Job(b).state(), JOB_PENDING);
  EXPECT_EQ(Job(c).reason(), "Dependency");
  End(a, 0);
  Pass();
  EXPECT_EQ(Job(b).state(), JOB_RUNNING);
  EXPECT_EQ(Job(b).dependency_size(), 0);  // satisfied: cleared
  EXPECT_EQ(Job(c).state(), JOB_PENDING);
  End(b, 0);
  Pass();
  EXPECT_EQ(Job(c).state(), JOB_RUNNING);
}

TEST_F(ArrayDepTest, NeverSatisfiedAndKillOnInvalidDep) {
  int64_t a = Submit("");
  std::string dep = "afterok:" + std::to_string(a);
  int64_t keep = Submit("", dep);
  int64_t kill = Submit("", dep, "job", 1);
  int64_t any = Submit("", "afterany:" + std::to_string(a));
  int64_t notok = Submit("", "afternotok:" + std::to_string(a));
  Pass();
  End(a, 1);
  Pass();
  EXPECT_EQ(Job(keep).state(), JOB_PENDING);
  EXPECT_EQ(Job(keep).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(Job(keep).dependency(0).state(), 2);
  EXPECT_EQ(Job(kill).state(), JOB_CANCELLED);
  EXPECT_EQ(Job(any).state(), JOB_RUNNING);
  EXPECT_EQ(Job(notok).state(), JOB_RUNNING);
  Reopen();  // the resolution is durable
  EXPECT_EQ(Job(keep).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(Job(keep).dependency(0).state(), 2);
  Pass();
  EXPECT_EQ(Job(keep).state(), JOB_PENDING);
}

TEST_F(ArrayDepTest, AfterNotOkOfSuccessNeverSatisfiedAndAnySeparator) {
  int64_t a = Submit("");
  std::string id = std::to_string(a);
  int64_t notok = Submit("", "afternotok:" + id);
  int64_t either = Submit("", "afternotok:" + id + "?afterok:" + id);
  int64_t both = Submit("", "afternotok:" + id + ",afterok:" + id);
  Pass();
  End(a, 0);
  Pass();
  EXPECT_EQ(Job(notok).reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(Job(either).state(), JOB_RUNNING);
  EXPECT_EQ(Job(both).reason(), "DependencyNeverSatisfied");
}

TEST_F(ArrayDepTest, UnknownJobIsAcceptedAndMalformedRejected) {
  int64_t j = Submit("", "afterok:999999");
  Pass();
  EXPECT_EQ(Job(j).state(), JOB_RUNNING);
  auto bad = TrySubmit("", "afterok:x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), kMsgDependency);
}

TEST_F(ArrayDepTest, AfterWaitsForStartPlusDelay) {
  int64_t a = Submit("");
  int64_t b = Submit("", "after:" + std::to_string(a) + "+1");
  Pass();
  EXPECT_EQ(Job(a).state(), JOB_RUNNING);
  Pass();
  EXPECT_EQ(Job(b).state(), JOB_PENDING);
  clock_.Advance(61);
  Pass();
  EXPECT_EQ(Job(b).state(), JOB_RUNNING);
}

TEST_F(ArrayDepTest, SingletonRunsOneAtATime) {
  int64_t a = Submit("", "singleton", "solo");
  int64_t b = Submit("", "singleton", "solo");
  int64_t other = Submit("", "singleton", "different");
  Pass();
  EXPECT_EQ(Job(a).state(), JOB_RUNNING);
  EXPECT_EQ(Job(b).reason(), "Dependency");
  EXPECT_EQ(Job(other).state(), JOB_RUNNING);
  End(a, 1);  // any end releases the next one
  Pass();
  EXPECT_EQ(Job(b).state(), JOB_RUNNING);
}

TEST_F(ArrayDepTest, DependencyOnArrayAndAftercorr) {
  int64_t a = Submit("0-1");
  int64_t whole = Submit("", "afterok:" + std::to_string(a));
  int64_t task1 = Submit("", "afterok:" + std::to_string(a) + "_1");
  int64_t corr = Submit("0-1", "aftercorr:" + std::to_string(a));
  Pass();
  EXPECT_EQ(Running(), 2);
  End(a + 1, 0);  // task 1
  Pass();
  EXPECT_EQ(Job(task1).state(), JOB_RUNNING);
  EXPECT_EQ(Job(whole).state(), JOB_PENDING);
  EXPECT_EQ(Job(corr).state(), JOB_PENDING);      // task 0 waits for task 0
  EXPECT_EQ(Job(corr + 1).state(), JOB_RUNNING);  // task 1 follows task 1
  End(a, 0);
  Pass();
  EXPECT_EQ(Job(whole).state(), JOB_RUNNING);
  EXPECT_EQ(Job(corr).state(), JOB_RUNNING);
}

}  // namespace
}  // namespace sluice::ctld
