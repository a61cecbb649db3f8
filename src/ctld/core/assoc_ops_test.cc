// Controller associations: sacctmgr requests (privileges, persistence), AdminLevel,
// AccountingStorageEnforce at submit, scheduling-time limits and persisted usage.
#include <gtest/gtest.h>

#include <filesystem>

#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "storage/sqlite_state_store.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;  // "u1000"
constexpr uint32_t kBob = 1001;    // "u1001"
const Caller kRoot{0, 0};

class AssocOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-assoc-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Open();
  }
  void TearDown() override {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  Config MakeConfig() const {
    Config c;
    c.path = "/etc/sluice/sluice.conf";
    c.cluster_name = "testc";
    for (const char* name : {"node01", "node02"}) {
      NodeConfig n;
      n.name = name;
      n.cpus = 4;
      n.real_memory_mb = 1000;
      c.nodes.push_back(n);
    }
    PartitionConfig p;
    p.name = "main";
    p.nodes = {"node01", "node02"};
    p.is_default = true;
    c.partitions.push_back(p);
    c.raw["AccountingStorageEnforce"] = enforce_;
    c.accounts.push_back({"seeded", "root", 5});
    c.priority.decay_half_life_s = 0;  // no decay: usage is exact
    c.priority.multifactor = true;
    c.priority.weight_qos = 1000;
    return c;
  }
  void Open() {  // (re)start on the same store
    ctl_.reset();
    store_.reset();
    store_ = std::move(storage::SqliteStateStore::Open(dir_ + "/state.db")).value();
    ControllerOptions o;  // passwd_names_: the daemon's, from the passwd and group files
    if (!passwd_names_) {
      o.user_name = [](uint32_t uid) {
        return uid == 0 ? std::string("root") : "u" + std::to_string(uid);
      };
      o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    }
    ctl_ = std::make_unique<Controller>(MakeConfig(), &clock_, store_.get(), &link_,
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
  Expected<SacctmgrReply> Mgr(const Caller& c, const std::string& verb, const std::string& entity,
                              std::vector<std::string> names, std::vector<std::string> set,
                              std::vector<std::string> where = {}) {
    SacctmgrRequest r;
    r.set_verb(verb);
    r.set_entity(entity);
    for (auto& n : names) r.add_names(n);
    for (auto& s : set) r.add_set(s);
    for (auto& w : where) r.add_where(w);
    return ctl_->Sacctmgr(c, r);
  }
  void MustMgr(const std::string& verb, const std::string& entity, std::vector<std::string> names,
               std::vector<std::string> set, std::vector<std::string> where = {}) {
    auto r = Mgr(kRoot, verb, entity, names, set, where);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  Expected<SubmitReply> Submit(uint32_t uid, const std::string& account = "", int cpus = 1,
                               int64_t time_min = 10) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_account(account);
    r.mutable_spec()->set_ntasks(cpus);
    r.mutable_spec()->set_time_limit_min(time_min);
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id) {
    JobEndedRequest e;
    e.set_node(ctl_->jobs().Find(id)->alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  std::string enforce_ = "associations,limits,qos";
  bool passwd_names_ = false;
  std::string dir_;
  ManualClock clock_{1'700'000'000};
  testing::FakeAgentLink link_;
  std::unique_ptr<sched::Scheduler> sched_ = sched::MakeScheduler(sched::SchedulerConfig{});
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<Controller> ctl_;
};

TEST_F(AssocOpsTest, AddShowAndPersistAcrossRestart) {
  MustMgr("add", "account", {"physics"}, {"parent=seeded", "fairshare=10", "maxjobs=3"});
  MustMgr("add", "user", {"u1000"}, {"account=physics"});
  MustMgr("add", "qos", {"high"},
          {"priority=100", "preempt=normal", "preemptmode=requeue", "gracetime=60",
           "maxtrespu=gres/gpu=4"});
  Open();
  const AssocDb& db = ctl_->assoc_db();
  ASSERT_NE(db.Account("physics"), nullptr);
  EXPECT_EQ(db.Account("physics")->parent(), "seeded");
  EXPECT_EQ(db.Account("physics")->shares(), 10);
  EXPECT_EQ(db.Account("physics")->limits().max_jobs(), 3);
  EXPECT_EQ(db.DefaultAccount("u1000"), "physics");
  ASSERT_NE(db.Qos("high"), nullptr);
  EXPECT_EQ(db.Qos("high")->priority(), 100);
  EXPECT_EQ(db.Qos("high")->preempt_mode(), QOS_PREEMPT_REQUEUE);
  EXPECT_EQ(db.Qos("high")->grace_time_s(), 60);
  EXPECT_EQ(db.Qos("high")->limits().max_tres_per_user(), "gres/gpu=4");
  ASSERT_EQ(db.Qos("high")->preempt_size(), 1);
  auto shown = Mgr({kAlice, kAlice}, "show", "user", {"u1000"}, {});
  ASSERT_TRUE(shown.ok());  // show is open to everyone
  ASSERT_EQ(shown->users_size(), 1);
  EXPECT_EQ(shown->users(0).account(), "physics");
}

TEST_F(AssocOpsTest, ChangesNeedPrivilegeAndAdminLevelGrantsIt) {
  auto denied = Mgr({kAlice, kAlice}, "add", "account", {"x"}, {});
  EXPECT_EQ(denied.status().code(), Code::kPermissionDenied);
  MustMgr("add", "user", {"u1000"}, {"account=seeded", "adminlevel=Operator"});
  MustMgr("add", "user", {"u1001"}, {"account=seeded"});
  EXPECT_TRUE(Mgr({kAlice, kAlice}, "add", "account", {"x"}, {}).ok());  // operator may edit
  auto raise = Mgr({kAlice, kAlice}, "modify", "user", {"u1000"}, {"adminlevel=Administrator"});
  EXPECT_EQ(raise.status().code(), Code::kPermissionDenied);
  // Operator: may cancel others' jobs; not drain nodes (admin only).
  auto job = Submit(kBob);
  ASSERT_TRUE(job.ok());
  CancelRequest c;
  c.add_job_ids(job->job_id());
  auto rep = ctl_->Cancel({kAlice, kAlice}, c);
  ASSERT_EQ(rep.results_size(), 1);
  EXPECT_EQ(rep.results(0).code(), 0) << rep.results(0).message();
  UpdateNodeRequest drain;
  drain.add_names("node01");
  drain.set_state("DRAIN");
  drain.set_reason("x");
  EXPECT_FALSE(ctl_->UpdateNode({kAlice, kAlice}, drain).ok());
  MustMgr("modify", "user", {"u1000"}, {"adminlevel=Administrator"});
  EXPECT_TRUE(ctl_->UpdateNode({kAlice, kAlice}, drain).ok());
}

// As the daemon runs it (no user_name in the options): an AdminLevel given to a passwd
// user applies to that user's uid.
TEST_F(AssocOpsTest, AdminLevelOfAPasswdUserWithTheDaemonsNameLookup) {
  passwd_names_ = true;
  Open();
  const Caller nobody{65534, 65534};  // "nobody" on Debian
  EXPECT_FALSE(ctl_->access().IsOperator(nobody));
  MustMgr("add", "user", {"nobody"}, {"account=seeded", "adminlevel=Operator"});
  EXPECT_TRUE(ctl_->access().IsOperator(nobody));
  EXPECT_FALSE(ctl_->access().IsAdmin(nobody));
}

TEST_F(AssocOpsTest, EnforceAssociationsAndQos) {
  auto no_assoc = Submit(kAlice);
  ASSERT_FALSE(no_assoc.ok());
  EXPECT_EQ(no_assoc.status().message(),
            "user u1000 has no association, so no default account\n"
            "Invalid account or account/partition combination specified");
  MustMgr("add", "account", {"physics"}, {});
  MustMgr("add", "user", {"u1000"}, {"account=physics"});
  auto ok = Submit(kAlice);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(Job(ok->job_id()).spec().account(), "physics");  // DefaultAccount
  EXPECT_EQ(Submit(kAlice, "seeded").status().message(),     // no association there
            "invalid account or partition for user u1000, account 'seeded', and partition 'main'\n"
            "Invalid account or account/partition combination specified");
  MustMgr("add", "qos", {"high"}, {});
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_qos("high");
  auto bad_qos = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_FALSE(bad_qos.ok());
  EXPECT_EQ(bad_qos.status().message(),
            "invalid qos specified: high (user u1000, account physics may use normal)\n"
            "Invalid qos specification");
  MustMgr("modify", "user", {"u1000"}, {"qos+=high"});
  EXPECT_TRUE(ctl_->Submit({kAlice, kAlice}, r).ok());
}

TEST_F(AssocOpsTest, SubmitLimitRejectsWithSlurmMessage) {
  MustMgr("add", "account", {"physics"}, {});
  MustMgr("add", "user", {"u1000"}, {"account=physics", "maxsubmitjobs=2"});
  ASSERT_TRUE(Submit(kAlice).ok());
  ASSERT_TRUE(Submit(kAlice).ok());
  auto third = Submit(kAlice);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(
      third.status().message(),
      "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)");
}

TEST_F(AssocOpsTest, MaxJobsAndGrpTresHoldJobsPending) {
  MustMgr("add", "account", {"physics"}, {"grptres=cpu=3"});
  MustMgr("add", "user", {"u1000"}, {"account=physics", "maxjobs=1"});
  MustMgr("add", "user", {"u1001"}, {"account=physics"});
  auto a1 = Submit(kAlice), a2 = Submit(kAlice);
  auto b1 = Submit(kBob, "", 2), b2 = Submit(kBob, "", 1);
  Pass();
  EXPECT_EQ(Job(a1->job_id()).state(), JOB_RUNNING);
  EXPECT_EQ(Job(a2->job_id()).state(), JOB_PENDING);
  EXPECT_EQ(Job(a2->job_id()).reason(), "AssocMaxJobsLimit");
  EXPECT_EQ(Job(b1->job_id()).state(), JOB_RUNNING);  // 1 + 2 cpus = 3
  EXPECT_EQ(Job(b2->job_id()).reason(), "AssocGrpCpuLimit");
  End(a1->job_id());
  Pass();
  EXPECT_EQ(Job(a2->job_id()).state(), JOB_RUNNING);
}

TEST_F(AssocOpsTest, MaxWallPendsOverLongJobsAndDefaultsTheLimit) {
  MustMgr("add", "account", {"physics"}, {"maxwall=30"});
  MustMgr("add", "user", {"u1000"}, {"account=physics"});
  auto long_job = Submit(kAlice, "", 1, 60);
  auto no_time = Submit(kAlice, "", 1, 0);
  Pass();
  EXPECT_EQ(Job(long_job->job_id()).reason(), "AssocMaxWallDurationPerJobLimit");
  EXPECT_EQ(Job(no_time->job_id()).state(), JOB_RUNNING);
  EXPECT_EQ(Job(no_time->job_id()).time_limit_min(), 30);
}

TEST_F(AssocOpsTest, UsageSurvivesRestartAndUsageFactorScalesIt) {
  MustMgr("add", "account", {"physics"}, {});
  MustMgr("add", "user", {"u1000"}, {"account=physics"});
  MustMgr("add", "user", {"u1001"}, {"account=physics"});
  MustMgr("add", "qos", {"cheap"}, {"usagefactor=0.5"});
  MustMgr("modify", "user", {"u1001"}, {"qos=normal,cheap", "defaultqos=cheap"});
  auto a = Submit(kAlice), b = Submit(kBob);
  Pass();
  ASSERT_EQ(Job(b->job_id()).state(), JOB_RUNNING);
  clock_.Advance(100);
  Pass();
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("physics", "u1000"), 100.0);
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("physics", "u1001"), 50.0);
  clock_.Advance(10);
  Pass();  // saved (throttle passed)
  double saved = ctl_->UsageOf("physics", "u1000");
  Open();
  EXPECT_DOUBLE_EQ(ctl_->UsageOf("physics", "u1000"), saved);
  (void)a;
}

TEST_F(AssocOpsTest, QosPriorityFeedsTheQosFactor) {
  MustMgr("add", "account", {"physics"}, {});
  MustMgr("add", "user", {"u1000"}, {"account=physics"});
  MustMgr("add", "qos", {"high"}, {"priority=100"});
  MustMgr("modify", "user", {"u1000"}, {"qos=normal,high"});
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\n");
  r.mutable_spec()->set_work_dir("/tmp");
  r.mutable_spec()->set_ntasks(8);
  r.mutable_spec()->set_hold(false);
  auto plain = ctl_->Submit({kAlice, kAlice}, r);  // each fills the cluster
  r.mutable_spec()->set_qos("high");
  auto high = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_TRUE(plain.ok() && high.ok()) << high.status().message();
  ASSERT_TRUE(ctl_->Commit().ok());
  Pass();
  GetPrioritiesRequest q;
  // The later high-QOS job outranks the earlier plain one and takes the cluster.
  EXPECT_EQ(Job(high->job_id()).state(), JOB_RUNNING);
  EXPECT_EQ(Job(plain->job_id()).state(), JOB_PENDING);
  auto prios = ctl_->GetPriorities(q);
  ASSERT_EQ(prios.jobs_size(), 1);
  EXPECT_EQ(prios.jobs(0).job_id(), plain->job_id());
  EXPECT_DOUBLE_EQ(prios.jobs(0).qos_factor(), 0.0);
}

// sacctmgr without -i first sends check_only: the reply says what would change, and
// nothing is changed or persisted until the real request.
TEST_F(AssocOpsTest, CheckOnlyChangesNothing) {
  SacctmgrRequest r;
  r.set_verb("add");
  r.set_entity("account");
  r.add_names("physics");
  r.add_set("parent=seeded");
  r.set_check_only(true);
  auto check = ctl_->Sacctmgr(kRoot, r);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_TRUE(check->changes());
  EXPECT_FALSE(check->lines().empty());
  EXPECT_EQ(ctl_->assoc_db().Account("physics"), nullptr);
  Open();
  EXPECT_EQ(ctl_->assoc_db().Account("physics"), nullptr);
  r.set_check_only(false);
  auto done = ctl_->Sacctmgr(kRoot, r);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(done->changes());
  EXPECT_EQ(std::vector<std::string>(done->lines().begin(), done->lines().end()),
            std::vector<std::string>(check->lines().begin(), check->lines().end()));
  ASSERT_NE(ctl_->assoc_db().Account("physics"), nullptr);
  // A check of a delete, then of a change that fails, leave the account alone.
  SacctmgrRequest del;
  del.set_verb("delete");
  del.set_entity("account");
  del.add_names("physics");
  del.set_check_only(true);
  auto check_del = ctl_->Sacctmgr(kRoot, del);
  ASSERT_TRUE(check_del.ok()) << check_del.status().message();
  EXPECT_TRUE(check_del->changes());
  EXPECT_NE(ctl_->assoc_db().Account("physics"), nullptr);
  r.set_check_only(true);
  EXPECT_FALSE(ctl_->Sacctmgr(kRoot, r).ok());               // already exists
  EXPECT_FALSE(ctl_->Sacctmgr({kAlice, kAlice}, del).ok());  // not privileged
  EXPECT_NE(ctl_->assoc_db().Account("physics"), nullptr);
}

}  // namespace
}  // namespace sluice::ctld
