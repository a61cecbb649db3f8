// GetJobs' filters and the JobTable indexes behind them (job_query.h): every filter kind,
// the indexes through a job's life (pending, running, requeued, finished, purged), and the
// script and environment left out unless asked.
#include "ctld/components/job_query.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;  // "u1000" in the harness
constexpr uint32_t kBob = 1001;

JobInfo MakeJob(int64_t id, JobState st, uint32_t uid, const std::string& user) {
  JobInfo j;
  j.set_job_id(id);
  j.set_state(st);
  j.set_uid(uid);
  j.set_user(user);
  return j;
}

TEST(JobQueryMatch, EveryFilterKind) {
  JobInfo j = MakeJob(7, JOB_RUNNING, kAlice, "alice");
  j.mutable_spec()->set_account("physics");
  j.mutable_spec()->set_partition("gpu");
  j.mutable_spec()->set_name("train");
  j.mutable_spec()->set_reservation("maint");
  j.add_alloc()->set_node("n1");
  j.add_alloc()->set_node("n2");
  GetJobsRequest q;
  EXPECT_TRUE(MatchesJobQuery(j, q));  // no filter
  auto passes = [&](auto set) {
    GetJobsRequest r;
    set(&r);
    return MatchesJobQuery(j, r);
  };
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_users("alice"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_users("1000"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_users("bob"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) {
    r->add_users("bob");
    r->add_users("alice");
  }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_accounts("physics"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_accounts("chem"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) {
    r->add_states(JOB_PENDING);
    r->add_states(JOB_RUNNING);
  }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_states(JOB_PENDING); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_partitions("gpu"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_partitions("cpu"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_names("train"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_names("eval"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_qos("normal"); }));  // no QOS = normal
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_qos("high"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_reservations("maint"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_reservations("other"); }));
  EXPECT_TRUE(passes([](GetJobsRequest* r) {
    r->add_nodes("n3");
    r->add_nodes("n2");
  }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_nodes("n3"); }));
  // AND between kinds.
  EXPECT_FALSE(passes([](GetJobsRequest* r) {
    r->add_users("alice");
    r->add_names("eval");
  }));
  j.mutable_spec()->set_qos("high");
  EXPECT_TRUE(passes([](GetJobsRequest* r) { r->add_qos("high"); }));
  EXPECT_FALSE(passes([](GetJobsRequest* r) { r->add_qos("normal"); }));
}

TEST(JobTableIndex, InsertReplaceSetStateErase) {
  JobTable t;
  t.Insert(MakeJob(1, JOB_PENDING, kAlice, "alice"));
  t.Insert(MakeJob(2, JOB_RUNNING, kBob, "bob"));
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{2}));
  EXPECT_EQ(t.OfUid(kAlice), (std::set<int64_t>{1}));
  EXPECT_EQ(t.UidsNamed("bob"), (std::set<uint32_t>{kBob}));
  t.SetState(t.Find(1), JOB_RUNNING);
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{1, 2}));
  t.SetState(t.Find(1), JOB_PENDING);  // requeued
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{2}));
  t.Insert(MakeJob(2, JOB_PENDING, kAlice, "alice"));  // replaced
  EXPECT_TRUE(t.NotPending().empty());
  EXPECT_TRUE(t.OfUid(kBob).empty());
  EXPECT_EQ(t.OfUid(kAlice), (std::set<int64_t>{1, 2}));
  t.Erase(1);
  EXPECT_EQ(t.OfUid(kAlice), (std::set<int64_t>{2}));
  EXPECT_TRUE(t.OfUid(12345).empty());
  EXPECT_TRUE(t.UidsNamed("nobody").empty());
}

class JobQueryTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    return testing::SmallCluster({"node01", "node02"}, "batch");
  }

  int64_t Submit(uint32_t uid, const std::string& name = "job", int cpus = 1) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_name(name);
    r.mutable_spec()->set_cpus_per_task(cpus);
    r.mutable_spec()->add_env("HOME=/home/x");
    r.mutable_spec()->add_env("PATH=/usr/bin");
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Schedule() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  // The ids GetJobs answers for `q`; checked against every job tested by hand, so a
  // stale index (a job missing from the candidates) fails here.
  std::vector<int64_t> Ids(const GetJobsRequest& q) {
    auto r = ctl_->GetJobs(q);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::vector<int64_t> got, want;
    if (r.ok()) {
      for (const JobInfo& j : r->jobs()) got.push_back(j.job_id());
    }
    if (q.job_ids().empty()) {
      for (const auto& [id, j] : ctl_->jobs().jobs()) {
        if (MatchesJobQuery(j, q)) want.push_back(id);
      }
      EXPECT_EQ(got, want);
    }
    return got;
  }
  std::vector<int64_t> InStates(std::initializer_list<JobState> states) {
    GetJobsRequest q;
    for (JobState s : states) q.add_states(s);
    return Ids(q);
  }
  std::vector<int64_t> OfUsers(std::initializer_list<const char*> users) {
    GetJobsRequest q;
    for (const char* u : users) q.add_users(u);
    return Ids(q);
  }
  using V = std::vector<int64_t>;
};

TEST_F(JobQueryTest, StatesFilterFollowsTheJobThroughItsLife) {
  int64_t id = Submit(kAlice);
  EXPECT_EQ(InStates({JOB_RUNNING}), V{});
  EXPECT_EQ(InStates({JOB_PENDING}), V{id});
  Schedule();
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_EQ(InStates({JOB_RUNNING}), V{id});
  EXPECT_EQ(InStates({JOB_PENDING}), V{});
  EXPECT_EQ(InStates({JOB_PENDING, JOB_RUNNING}), V{id});
  End(id);
  ASSERT_EQ(Job(id).state(), JOB_COMPLETED);
  EXPECT_EQ(InStates({JOB_RUNNING}), V{});
  EXPECT_EQ(InStates({JOB_COMPLETED}), V{id});
}

TEST_F(JobQueryTest, RequeuedJobIsPendingAgain) {
  int64_t id = Submit(kAlice);
  Schedule();
  UpdateJobRequest u;
  u.add_job_ids(id);
  u.set_action(JOB_ACTION_REQUEUE);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(InStates({JOB_COMPLETING}), V{id});
  End(id);
  ASSERT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(InStates({JOB_RUNNING, JOB_COMPLETING, JOB_COMPLETED}), V{});
  EXPECT_EQ(InStates({JOB_PENDING}), V{id});
  Schedule();
  InStates({JOB_RUNNING, JOB_PENDING});  // whichever it is now: checked against every job
}

TEST_F(JobQueryTest, CancelledPendingJobLeavesThePendingOnes) {
  int64_t id = Submit(kAlice);
  CancelRequest c;
  c.add_job_ids(id);
  ctl_->Cancel({kAlice, kAlice}, c);
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(InStates({JOB_CANCELLED}), V{id});
  EXPECT_EQ(InStates({JOB_PENDING}), V{});
}

TEST_F(JobQueryTest, UsersByNameOrUid) {
  int64_t a1 = Submit(kAlice), b = Submit(kBob), a2 = Submit(kAlice);
  EXPECT_EQ(OfUsers({"u1000"}), (V{a1, a2}));
  EXPECT_EQ(OfUsers({"1001"}), V{b});
  EXPECT_EQ(OfUsers({"u1000", "1001"}), (V{a1, b, a2}));
  EXPECT_EQ(OfUsers({"1000", "u1000"}), (V{a1, a2}));
  EXPECT_EQ(OfUsers({"nobody"}), V{});
  EXPECT_EQ(OfUsers({"4294967296"}), V{});  // not a uid
  // AND with the other kinds.
  GetJobsRequest q;
  q.add_users("u1000");
  q.add_states(JOB_RUNNING);
  EXPECT_EQ(Ids(q), V{});
}

TEST_F(JobQueryTest, NodesNamesPartitionsAccountsQos) {
  int64_t big = Submit(kAlice, "big", 4), small = Submit(kBob, "small", 1);
  Schedule();
  ASSERT_EQ(Job(big).state(), JOB_RUNNING);
  ASSERT_EQ(Job(small).state(), JOB_RUNNING);
  GetJobsRequest q;
  q.add_nodes(Job(small).alloc(0).node());
  EXPECT_EQ(Ids(q), V{small});
  q.add_nodes(Job(big).alloc(0).node());
  EXPECT_EQ(Ids(q), (V{big, small}));
  q.Clear();
  q.add_names("big");
  EXPECT_EQ(Ids(q), V{big});
  q.Clear();
  q.add_partitions("batch");
  EXPECT_EQ(Ids(q), (V{big, small}));
  q.add_partitions("other");
  q.add_names("small");
  EXPECT_EQ(Ids(q), V{small});
  q.Clear();
  q.add_qos("normal");
  EXPECT_EQ(Ids(q), (V{big, small}));
  q.Clear();
  q.add_accounts(Job(big).spec().account());
  EXPECT_EQ(Ids(q).size(), 2u);
  q.Clear();
  q.add_accounts("no-such-account");
  EXPECT_EQ(Ids(q), V{});
}

TEST_F(JobQueryTest, IndexesNarrowTheCandidates) {
  for (int i = 0; i < 20; ++i) Submit(kAlice, "job", 4);
  int64_t bob = Submit(kBob, "job", 4);
  Schedule();  // two of alice's jobs start (two nodes of 4 CPUs)
  GetJobsRequest running;
  running.add_states(JOB_RUNNING);
  EXPECT_EQ(JobQueryCandidates(ctl_->jobs(), running)->size(), 2u);
  GetJobsRequest of_bob;
  of_bob.add_users("u1001");
  EXPECT_EQ(*JobQueryCandidates(ctl_->jobs(), of_bob), V{bob});
  of_bob.add_states(JOB_RUNNING);  // the smaller index
  EXPECT_EQ(JobQueryCandidates(ctl_->jobs(), of_bob)->size(), 1u);
  EXPECT_EQ(Ids(of_bob), V{});
  GetJobsRequest pending;
  pending.add_states(JOB_PENDING);
  EXPECT_FALSE(JobQueryCandidates(ctl_->jobs(), pending).has_value());  // every job
  EXPECT_EQ(Ids(pending).size(), 19u);
}

TEST_F(JobQueryTest, ScriptAndEnvOnlyWhenAsked) {
  int64_t id = Submit(kAlice, "withenv");
  GetJobsRequest q;
  auto lean = ctl_->GetJobs(q);
  ASSERT_TRUE(lean.ok());
  ASSERT_EQ(lean->jobs_size(), 1);
  EXPECT_TRUE(lean->jobs(0).spec().script().empty());
  EXPECT_EQ(lean->jobs(0).spec().env_size(), 0);
  EXPECT_EQ(lean->jobs(0).spec().name(), "withenv");
  EXPECT_EQ(lean->jobs(0).spec().work_dir(), "/tmp");
  q.set_with_script_env(true);
  q.add_job_ids(id);
  auto full = ctl_->GetJobs(q);
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->jobs_size(), 1);
  EXPECT_EQ(full->jobs(0).spec().script(), "#!/bin/sh\ntrue\n");
  EXPECT_EQ(full->jobs(0).spec().env_size(), 2);
  // The controller's record holds neither: they are in the state store, once.
  EXPECT_TRUE(Job(id).spec().script().empty());
  EXPECT_EQ(Job(id).spec().env_size(), 0);
  auto stored = store_.LoadScript(id);
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->script(), "#!/bin/sh\ntrue\n");
  EXPECT_EQ((*stored)->env_size(), 2);
}

TEST_F(JobQueryTest, JobIdsWithFilters) {
  int64_t id = Submit(kAlice);
  GetJobsRequest q;
  q.add_job_ids(id);
  q.add_states(JOB_RUNNING);
  auto r = ctl_->GetJobs(q);  // the id names a job; the filter leaves none
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs_size(), 0);
  q.set_job_ids(0, id + 100);
  EXPECT_EQ(ctl_->GetJobs(q).status().code(), Code::kNotFound);
  q.Clear();
  q.add_states(JOB_RUNNING);  // filters only: an empty list is an answer
  r = ctl_->GetJobs(q);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->jobs_size(), 0);
}

TEST_F(JobQueryTest, ArrayIdExpandsUnderFilters) {
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_array_spec("0-3");
  r.mutable_spec()->set_cpus_per_task(4);
  auto rep = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  ASSERT_TRUE(ctl_->Commit().ok());
  Schedule();  // two tasks start
  GetJobsRequest q;
  q.add_job_ids(rep->job_id());
  EXPECT_EQ(Ids(q).size(), 4u);
  q.add_states(JOB_RUNNING);
  EXPECT_EQ(Ids(q).size(), 2u);
}

TEST_F(JobQueryTest, IndexesSurviveARestart) {
  int64_t run = Submit(kAlice, "job", 4), run2 = Submit(kAlice, "job", 4);  // both nodes
  int64_t wait = Submit(kBob, "job", 4), wait2 = Submit(kBob, "job", 4);
  Schedule();
  ASSERT_EQ(Job(run2).state(), JOB_RUNNING);
  ASSERT_EQ(Job(wait).state(), JOB_PENDING);
  StartController();
  EXPECT_EQ(InStates({JOB_RUNNING}), (V{run, run2}));
  EXPECT_EQ(OfUsers({"u1001"}), (V{wait, wait2}));
}

}  // namespace
}  // namespace sluice::ctld
