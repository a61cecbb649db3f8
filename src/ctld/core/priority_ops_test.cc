// Controller priority/fair-share: usage accrual and decay, multifactor priorities of
// pending jobs, priority order given to the scheduler, sprio/sshare replies.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "ctld/components/scheduler_config.h"
#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "storage/sqlite_state_store.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;
constexpr uint32_t kBob = 1001;

Config PrioConfig() {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
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
  p.max_time_min = 600;
  c.partitions.push_back(p);
  c.priority.multifactor = true;
  c.priority.weight_fairshare = 10000;
  c.priority.weight_age = 1000;
  c.priority.max_age_s = 1000;
  c.priority.decay_half_life_s = 3600;
  c.accounts.push_back({"research", "root", 1});
  c.user_assocs.push_back({"u1000", "research", 1});
  c.user_assocs.push_back({"u1001", "research", 1});
  return c;
}

class PriorityOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-prio-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Open(PrioConfig());
  }
  void TearDown() override {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open(Config config) {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove(dir_ + "/state.db");
    store_ = std::move(storage::SqliteStateStore::Open(dir_ + "/state.db")).value();
    ControllerOptions o;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    ctl_ = std::make_unique<Controller>(std::move(config), &clock_, store_.get(), &link_,
                                        SchedDeps{sched_.get(), testing::FakeFeasible}, o);
    ASSERT_TRUE(ctl_->Load(false).ok());
    for (const char* n : {"node01", "node02"}) {
      RegisterNodeRequest r;
      r.set_node(n);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
    }
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  // A job that needs the whole cluster (2 nodes x 4 CPUs).
  int64_t SubmitWhole(uint32_t uid, int64_t nice = 0, int64_t time_limit_min = 0) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_min_nodes(2);
    r.mutable_spec()->set_ntasks_per_node(4);
    r.mutable_spec()->set_nice(nice);
    r.mutable_spec()->set_time_limit_min(time_limit_min);
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id) {
    JobEndedRequest e;
    e.set_node("node01");
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  std::string dir_;
  ManualClock clock_{1'700'000'000};
  testing::FakeAgentLink link_;
  std::unique_ptr<sched::Scheduler> sched_ = sched::MakeFifoScheduler();
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<Controller> ctl_;
};

TEST_F(PriorityOpsTest, UsageAccruesFromRunningJobsAndDecays) {
  Pass();
  int64_t id = SubmitWhole(kAlice);
  Pass();
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  clock_.Advance(100);
  Pass();
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("research", "u1000"), 8 * 100);  // billing = CPUs
  clock_.Advance(3600);
  End(id);
  Pass();
  // Decayed by one half-life, then charged for the hour it ran.
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("research", "u1000"), 8 * 100 * 0.5 + 8 * 3600);
  clock_.Advance(3600);
  Pass();  // no longer running: only decay
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("research", "u1000"), (8 * 100 * 0.5 + 8 * 3600) * 0.5);
  EXPECT_EQ(ctl_->UsageOf("research", "u1001"), 0);
}

TEST_F(PriorityOpsTest, HeavyUsersJobWaitsBehindLightUsers) {
  Pass();
  int64_t heavy = SubmitWhole(kAlice);
  Pass();
  clock_.Advance(500);
  End(heavy);
  int64_t a = SubmitWhole(kAlice);  // submitted first ...
  int64_t b = SubmitWhole(kBob);    // ... but bob has used nothing
  Pass();
  EXPECT_GT(Job(b).priority(), Job(a).priority());
  EXPECT_EQ(Job(b).state(), JOB_RUNNING);
  EXPECT_EQ(Job(a).state(), JOB_PENDING);
  auto prio = ctl_->GetPriorities(GetPrioritiesRequest());
  ASSERT_EQ(prio.jobs_size(), 1);
  EXPECT_EQ(prio.jobs(0).job_id(), a);
  EXPECT_EQ(prio.jobs(0).fairshare(), 5000);  // rank 1 of 2 users
  EXPECT_EQ(prio.jobs(0).account(), "research");
  EXPECT_TRUE(prio.multifactor());
  EXPECT_EQ(prio.weight_fairshare(), 10000);
}

TEST_F(PriorityOpsTest, AgeAndNiceAndHeldJobs) {
  int64_t old_job = SubmitWhole(kAlice);
  clock_.Advance(500);
  int64_t young = SubmitWhole(kAlice);
  int64_t nice = SubmitWhole(kAlice, 300);
  UpdateJobRequest hold;
  hold.add_job_ids(young);
  hold.set_action(JOB_ACTION_HOLD);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, hold).ok());
  ctl_->SchedulePass();
  // Nothing ran yet: both users rank alike (fs 1.0); age 500/1000 for the first job.
  EXPECT_EQ(Job(old_job).priority(), 10000 + 500);
  EXPECT_EQ(Job(young).priority(), 0);  // held stays 0
  EXPECT_EQ(Job(nice).priority(), 10000 - 300);
  EXPECT_EQ(Job(old_job).state(), JOB_RUNNING);
}

// Explanations of several pending jobs at once (scontrol show job, sluice why): each is
// behind the jobs a pass considers before it in its partition (priority, then id): how
// many, and the first three priorities. A held job is ahead of nobody.
TEST_F(PriorityOpsTest, ExplanationsCountTheJobsAheadInPassOrder) {
  const int64_t running = SubmitWhole(kAlice);
  Pass();
  ASSERT_EQ(Job(running).state(), JOB_RUNNING);
  const int64_t a = SubmitWhole(kAlice, 100);  // priority 9900
  const int64_t b = SubmitWhole(kAlice, 300);  // 9700
  const int64_t c = SubmitWhole(kAlice, 200);  // 9800
  const int64_t d = SubmitWhole(kAlice, 100);  // 9900, after a by id
  const int64_t e = SubmitWhole(kAlice, 400);  // 9600
  const int64_t held = SubmitWhole(kAlice);
  UpdateJobRequest hold;
  hold.add_job_ids(held);
  hold.set_action(JOB_ACTION_HOLD);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, hold).ok());
  Pass();
  ASSERT_EQ(Job(c).priority(), 9800);
  GetJobsRequest q;
  for (int64_t id : {e, b, d, a, c}) q.add_job_ids(id);
  q.set_explain(true);
  Expected<GetJobsReply> reply = ctl_->GetJobs(q);
  ASSERT_TRUE(reply.ok());
  std::map<int64_t, std::string> why;
  for (const JobInfo& j : reply->jobs()) why[j.job_id()] = j.explanation();
  EXPECT_EQ(why[a].find("behind"), std::string::npos) << why[a];
  EXPECT_EQ(
      why[d].rfind("behind 1 higher-priority job in partition gpu (priority 9900 vs 9900)", 0), 0u)
      << why[d];
  EXPECT_EQ(why[c].rfind("behind 2 higher-priority jobs in partition gpu (priority 9800 vs 9900, "
                         "9900)",
                         0),
            0u)
      << why[c];
  EXPECT_EQ(why[b].rfind("behind 3 higher-priority jobs in partition gpu (priority 9700 vs 9900, "
                         "9900, 9800)",
                         0),
            0u)
      << why[b];
  EXPECT_EQ(why[e].rfind("behind 4 higher-priority jobs in partition gpu (priority 9600 vs 9900, "
                         "9900, 9800, ...)",
                         0),
            0u)
      << why[e];
}

// SchedulerParameters queue_order: jobs of one priority class (the same user here: the
// same fair-share; age aside) are taken by the order's key, the shortest first under SJBF,
// and the explanations count the jobs ahead in that order.
TEST_F(PriorityOpsTest, QueueOrderTakesAClassShortestFirst) {
  Config c = PrioConfig();
  c.raw["SchedulerType"] = "sched/builtin";
  c.raw["SchedulerParameters"] = "queue_order=sjbf";
  sched_ = sched::MakeScheduler(SchedulerConfigFrom(c).value());
  Open(c);
  const int64_t running = SubmitWhole(kAlice);
  Pass();
  ASSERT_EQ(Job(running).state(), JOB_RUNNING);
  const int64_t long_job = SubmitWhole(kAlice, 0, 500);
  clock_.Advance(10);  // older: first by age alone
  const int64_t short_job = SubmitWhole(kAlice, 0, 5);
  Pass();
  GetJobsRequest q;
  q.add_job_ids(long_job);
  q.set_explain(true);
  Expected<GetJobsReply> why = ctl_->GetJobs(q);
  ASSERT_TRUE(why.ok());
  EXPECT_EQ(why->jobs(0).explanation().rfind(
                "behind 1 job that queue order sjbf takes first in partition gpu", 0),
            0u)
      << why->jobs(0).explanation();
  End(running);
  Pass();
  EXPECT_EQ(Job(short_job).state(), JOB_RUNNING);
  EXPECT_EQ(Job(long_job).state(), JOB_PENDING);
}

TEST_F(PriorityOpsTest, PriorityTierFirstThenPriority) {
  Config c = PrioConfig();
  PartitionConfig hi = c.partitions[0];
  hi.name = "hi";
  hi.is_default = false;
  hi.priority_tier = 5;
  c.partitions.push_back(hi);
  Open(c);
  int64_t low_tier = SubmitWhole(kAlice);
  clock_.Advance(900);  // much older: higher priority
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_min_nodes(2);
  r.mutable_spec()->set_ntasks_per_node(4);
  r.mutable_spec()->set_partition("hi");
  auto high_tier = ctl_->Submit({kBob, kBob}, r);
  ASSERT_TRUE(high_tier.ok());
  Pass();
  EXPECT_GT(Job(low_tier).priority(), Job(high_tier->job_id()).priority());
  EXPECT_EQ(Job(high_tier->job_id()).state(), JOB_RUNNING);
  EXPECT_EQ(Job(low_tier).state(), JOB_PENDING);
}

TEST_F(PriorityOpsTest, BasicPriorityKeepsFifo) {
  Config c = PrioConfig();
  c.priority.multifactor = false;
  Open(c);
  Pass();
  int64_t heavy = SubmitWhole(kAlice);
  Pass();
  clock_.Advance(500);
  End(heavy);
  int64_t a = SubmitWhole(kAlice);
  int64_t b = SubmitWhole(kBob);
  Pass();
  EXPECT_EQ(Job(a).priority(), 1);
  EXPECT_EQ(Job(b).priority(), 1);
  EXPECT_EQ(Job(a).state(), JOB_RUNNING);
  EXPECT_FALSE(ctl_->GetPriorities(GetPrioritiesRequest()).multifactor());
}

TEST_F(PriorityOpsTest, SharesTreeIncludesImplicitUsers) {
  Pass();
  int64_t id = SubmitWhole(2000);  // u2000 has no association: implicit under root
  Pass();
  clock_.Advance(10);
  Pass();
  auto shares = ctl_->GetShares();
  ASSERT_TRUE(shares.ok());
  std::vector<std::string> rows;
  for (const auto& r : shares->rows()) rows.push_back(r.account() + "/" + r.user());
  EXPECT_EQ(rows, (std::vector<std::string>{"root/", "root/u2000", "research/", "research/u1000",
                                            "research/u1001"}));
  EXPECT_DOUBLE_EQ(shares->rows(0).raw_usage(), 80);
  EXPECT_DOUBLE_EQ(shares->rows(1).effective_usage(), 1.0);
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
}

TEST_F(PriorityOpsTest, NegativeNiceNeedsAdmin) {
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_nice(-10);
  auto denied = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().message(), kMsgAccessDenied);
  EXPECT_TRUE(ctl_->Submit({0, 0}, r).ok());
}

}  // namespace
}  // namespace sluice::ctld
