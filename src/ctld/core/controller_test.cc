#include "ctld/core/controller.h"
#include "storage/sqlite_state_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "common/slurm_format.h"
#include "ctld/components/step_layout.h"
#include "ctld/components/validate.h"
#include "ctld/testing/test_fakes.h"

namespace sluice::ctld {
namespace {

using testing::FakeAgentLink;
using testing::FirstFitScheduler;

constexpr uint32_t kAlice = 1000;
constexpr uint32_t kBob = 1001;

Config TestConfig() {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
  c.slurmd_timeout_s = 300;
  for (const char* name : {"node01", "node02"}) {
    NodeConfig n;
    n.name = name;
    n.cpus = 4;
    n.real_memory_mb = 1000;
    for (int i = 0; i < 2; ++i) n.gpus.push_back({i, "h100", "", "", ""});
    c.nodes.push_back(n);
  }
  PartitionConfig p;
  p.name = "gpu";
  p.nodes = {"node01", "node02"};
  p.is_default = true;
  p.max_time_min = 60;
  c.partitions.push_back(p);
  PartitionConfig d = p;
  d.name = "closed";
  d.is_default = false;
  d.up = false;
  c.partitions.push_back(d);
  return c;
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-ctld-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Reopen();
  }
  void TearDown() override {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Reopen(bool clean = false) {
    ctl_.reset();
    store_.reset();
    store_ = std::move(storage::SqliteStateStore::Open(dir_ + "/state.db")).value();
    ControllerOptions o;
    o.admin_uid = 0;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    ctl_ = std::make_unique<Controller>(TestConfig(), &clock_, store_.get(), &link_,
                                        SchedDeps{&sched_, testing::FakeFeasible}, o);
    ASSERT_TRUE(ctl_->Load(clean).ok());
  }

  void EndStep(int64_t job_id, int step_id) {  // srun reports the step's end
    KeepaliveRequest ended;
    ended.set_job_id(job_id);
    ended.add_ended_step_ids(step_id);
    ASSERT_TRUE(ctl_->Keepalive({kAlice, kAlice}, ended).ok());
  }

  void RegisterAll() {
    for (const char* n : {"node01", "node02"}) {
      RegisterNodeRequest r;
      r.set_node(n);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
    }
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  // Registers both nodes and starts Alice's job on both (2 GPUs each); returns its id.
  int64_t StartOnBothNodes(int tasks_per_node = 0) {
    RegisterAll();
    SubmitRequest r = Req(2);
    r.mutable_spec()->set_min_nodes(2);
    if (tasks_per_node) r.mutable_spec()->set_ntasks_per_node(tasks_per_node);
    int64_t id = Submit(kAlice, r);
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    return id;
  }

  static SubmitRequest Req(int gpus = 0) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/home/alice");
    if (gpus) {
      auto* g = r.mutable_spec()->add_gres_per_node();
      g->set_name("gpu");
      g->set_count(gpus);
    }
    return r;
  }

  int64_t Submit(uint32_t uid = kAlice, SubmitRequest r = Req()) {
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }

  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  void EndJob(int64_t id, int exit_code, JobState st = JOB_STATE_UNSPECIFIED) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_exit_code(exit_code);
    e.mutable_report()->set_state(st);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  int64_t StartOne(uint32_t uid = kAlice, SubmitRequest r = Req()) {
    int64_t id = Submit(uid, r);
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    EXPECT_EQ(Job(id).state(), JOB_RUNNING);
    return id;
  }

  std::string dir_;
  ManualClock clock_{1'700'000'000};
  FakeAgentLink link_;
  FirstFitScheduler sched_;
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<Controller> ctl_;
};

TEST_F(ControllerTest, JobIdsStartAtOneAndSurviveRestart) {
  EXPECT_EQ(Submit(), 1);
  EXPECT_EQ(Submit(), 2);
  Reopen();
  EXPECT_EQ(Submit(), 3);
  EXPECT_EQ(Job(1).state(), JOB_PENDING);
  EXPECT_EQ(Job(1).user(), "u1000");
  Reopen(/*clean=*/true);
  EXPECT_EQ(ctl_->jobs().size(), 0u);
  EXPECT_EQ(Submit(), 4);  // ids never repeat
}

TEST_F(ControllerTest, SubmitIsDurableOnlyAfterCommit) {
  auto rep = ctl_->Submit({kAlice, kAlice}, Req());
  ASSERT_TRUE(rep.ok());
  EXPECT_TRUE(store_->LoadAll()->jobs.empty());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(store_->LoadAll()->jobs.size(), 1u);
}

TEST_F(ControllerTest, ValidationMessagesMatchSlurm) {
  auto r = Req();
  r.mutable_spec()->set_partition("nosuch");
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, r).status().message(),
            std::string("invalid partition specified: nosuch\n") + kMsgInvalidPartition);
  r = Req();
  r.mutable_spec()->set_time_limit_min(61);
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, r).status().message(), kMsgBadTimeLimit);
  r.mutable_spec()->set_time_limit_min(-1);
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, r).status().message(), kMsgBadTimeLimit);
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, Req(3)).status().message(),
            "GPU count per node can not be satisfied: 3 GPUs (gpu) on one node, the largest node "
            "in partition gpu has 2\n" +
                std::string(kMsgNodeConfig));
  r = Req();
  r.mutable_spec()->set_mem_per_node_mb(5000);
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, r).status().message(),
            std::string(kMsgMemory) + "\n" + kMsgNodeConfig);
  r = Req();
  r.mutable_spec()->set_script("echo no shebang");
  EXPECT_FALSE(ctl_->Submit({kAlice, kAlice}, r).ok());
  r = Req();
  r.mutable_spec()->set_nodelist("node09");
  EXPECT_EQ(ctl_->Submit({kAlice, kAlice}, r).status().message(), kMsgBadNodeName);
  EXPECT_EQ(ctl_->next_job_id(), 1);  // rejected submissions consume no id
}

TEST_F(ControllerTest, NormalisesDefaults) {
  auto r = Req(2);
  r.mutable_spec()->set_min_nodes(2);
  r.mutable_spec()->set_ntasks_per_node(2);
  r.mutable_spec()->set_mem_per_cpu_mb(100);
  int64_t id = Submit(kAlice, r);
  const JobInfo& j = Job(id);
  EXPECT_EQ(j.spec().partition(), "gpu");
  EXPECT_EQ(j.time_limit_min(), 60);  // no DefaultTime: MaxTime
  EXPECT_EQ(j.num_nodes(), 2);
  EXPECT_EQ(j.num_tasks(), 4);
  EXPECT_EQ(j.num_cpus(), 4);
  EXPECT_EQ(j.gpus_per_node(), 2);
  EXPECT_EQ(j.mem_per_node_mb(), 200);
  EXPECT_EQ(j.reason(), "None");
}

TEST_F(ControllerTest, TestOnlyReportsPlacementWithoutQueuing) {
  RegisterAll();
  auto r = Req(1);
  r.set_test_only(true);
  auto rep = ctl_->Submit({kAlice, kAlice}, r);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->job_id(), 0);
  EXPECT_EQ(rep->test_only_message(), "Job 1 to start at " + FormatTimestamp(1'700'000'000) +
                                          " using 1 processors on nodes node01 in partition gpu");
  EXPECT_EQ(ctl_->jobs().size(), 0u);
}

TEST_F(ControllerTest, SchedulesAndLaunchesOnlyAfterCommit) {
  RegisterAll();
  int64_t id = Submit(kAlice, Req(1));
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_TRUE(link_.launches.empty());  // not before the start is durable
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(link_.launches.size(), 1u);
  const BatchLaunch& l = link_.launches[0].req.launch();
  EXPECT_EQ(l.job_id(), id);
  EXPECT_EQ(l.stdout_path(), "/home/alice/slurm-1.out");
  EXPECT_EQ(l.time_limit_s(), 3600);
  EXPECT_EQ(l.local().gpu_ids_size(), 1);
  EXPECT_EQ(l.job().alloc(0).node(), l.local().node());
  EXPECT_EQ(store_->LoadAll()->jobs[0].state(), JOB_RUNNING);
}

TEST_F(ControllerTest, NothingStartsOnUnregisteredOrDrainedNodes) {
  int64_t id = Submit();
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  RegisterAll();
  UpdateNodeRequest d;
  d.add_names("node01");
  d.add_names("node02");
  d.set_state("DRAIN");
  d.set_reason("maint");
  ASSERT_TRUE(ctl_->UpdateNode({0, 0}, d).ok());
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "Resources");
}

TEST_F(ControllerTest, JobEndSetsStateAndFreesResources) {
  RegisterAll();
  int64_t a = StartOne(kAlice, Req(2));
  int64_t b = StartOne(kAlice, Req(2));
  int64_t c = Submit(kAlice, Req(2));
  ctl_->SchedulePass();
  EXPECT_EQ(Job(c).state(), JOB_PENDING);
  EndJob(a, 0);
  EXPECT_EQ(Job(a).state(), JOB_COMPLETED);
  EndJob(b, 3);
  EXPECT_EQ(Job(b).state(), JOB_FAILED);
  EXPECT_EQ(Job(b).exit_code(), 3);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(c).state(), JOB_RUNNING);
}

TEST_F(ControllerTest, CancelPendingAndRunning) {
  RegisterAll();
  int64_t run = StartOne(kAlice, Req(2));
  int64_t pend = Submit(kAlice, Req(2));
  int64_t pend2 = Submit(kAlice, Req(2));
  CancelRequest req;
  req.add_job_ids(pend);
  req.add_job_ids(run);
  req.add_job_ids(999);
  CancelReply rep = ctl_->Cancel({kAlice, kAlice}, req);
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(rep.results_size(), 3);
  EXPECT_EQ(rep.results(0).code(), 0);
  EXPECT_EQ(rep.results(2).message(), kMsgInvalidJobId);
  EXPECT_EQ(Job(pend).state(), JOB_CANCELLED);
  EXPECT_EQ(Job(run).state(), JOB_CANCELLED);  // shown at once
  EXPECT_TRUE(Job(run).completing());
  ASSERT_EQ(link_.signals.size(), 1u);
  EXPECT_EQ(link_.signals[0].second.kind(), SIGNAL_CANCEL);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(pend2).state(), JOB_RUNNING);  // node02 was free
  // Cancelling again: already completing.
  rep = ctl_->Cancel({kAlice, kAlice}, req);
  EXPECT_EQ(rep.results(1).message(), kMsgAlreadyDone);
  EndJob(run, 0, JOB_CANCELLED);
  EXPECT_FALSE(Job(run).completing());
  EXPECT_EQ(Job(run).state(), JOB_CANCELLED);
}

TEST_F(ControllerTest, UsersMayOnlyTouchTheirOwnJobs) {
  int64_t id = Submit(kAlice);
  CancelRequest req;
  req.add_job_ids(id);
  EXPECT_EQ(ctl_->Cancel({kBob, kBob}, req).results(0).message(), kMsgAccessDenied);
  UpdateJobRequest hold;
  hold.add_job_ids(id);
  hold.set_action(JOB_ACTION_HOLD);
  EXPECT_EQ(ctl_->UpdateJob({kBob, kBob}, hold).message(), kMsgAccessDenied);
  UpdateNodeRequest drain;
  drain.add_names("node01");
  drain.set_state("DRAIN");
  drain.set_reason("x");
  EXPECT_EQ(ctl_->UpdateNode({kAlice, kAlice}, drain).code(), Code::kPermissionDenied);
  EXPECT_EQ(ctl_->Cancel({0, 0}, req).results(0).code(), 0);  // root may
}

TEST_F(ControllerTest, HoldAndRelease) {
  RegisterAll();
  int64_t id = Submit(kAlice);
  UpdateJobRequest u;
  u.add_job_ids(id);
  u.set_action(JOB_ACTION_HOLD);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, u).ok());
  EXPECT_EQ(Job(id).reason(), "JobHeldAdmin");
  EXPECT_EQ(Job(id).priority(), 0);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  u.set_action(JOB_ACTION_RELEASE);
  EXPECT_EQ(ctl_->UpdateJob({kAlice, kAlice}, u).message(), kMsgAccessDenied);
  ASSERT_TRUE(ctl_->UpdateJob({0, 0}, u).ok());
  u.set_action(JOB_ACTION_HOLD);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  u.set_action(JOB_ACTION_RELEASE);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
}

TEST_F(ControllerTest, TimeLimitUpdates) {
  RegisterAll();
  int64_t id = StartOne();
  ASSERT_TRUE(ctl_->Commit().ok());
  UpdateJobRequest u;
  u.add_job_ids(id);
  u.set_set_time_limit(true);
  u.set_time_limit_min(120);
  EXPECT_EQ(ctl_->UpdateJob({kAlice, kAlice}, u).message(), kMsgAccessDenied);
  u.set_time_limit_min(kMaxTimeLimitMin + 1);
  EXPECT_EQ(ctl_->UpdateJob({0, 0}, u).message(), kMsgBadTimeLimit);
  u.set_time_limit_min(5);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).time_limit_min(), 5);
  ASSERT_EQ(link_.limits.size(), 1u);
  EXPECT_EQ(link_.limits[0].second.time_limit_s(), 300);
}

TEST_F(ControllerTest, RequeueRunningJobWaitsForProcesses) {
  RegisterAll();
  int64_t id = StartOne();
  UpdateJobRequest u;
  u.add_job_ids(id);
  u.set_action(JOB_ACTION_REQUEUE);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_COMPLETING);
  EndJob(id, 0, JOB_CANCELLED);
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 1);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EndJob(id, 0);
  ASSERT_TRUE(ctl_->UpdateJob({kAlice, kAlice}, u).ok());  // finished jobs too
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).restarts(), 2);
}

TEST_F(ControllerTest, ReconcileOnRegister) {
  RegisterAll();
  int64_t kept = StartOne();
  int64_t lost = StartOne();
  ASSERT_EQ(Job(kept).alloc(0).node(), "node01");
  ASSERT_EQ(Job(lost).alloc(0).node(), "node01");
  for (auto& l : link_.launches) l.done(Status::Ok());
  RegisterNodeRequest r;
  r.set_node("node01");
  r.set_cpus(4);
  r.set_real_memory_mb(1000);
  for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
  r.add_jobs()->set_job_id(kept);
  r.add_jobs()->set_job_id(777);  // unknown to the controller
  auto rep = ctl_->RegisterNode(r);
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep->kill_job_ids_size(), 1) << rep->DebugString();
  EXPECT_EQ(rep->kill_job_ids(0), 777);
  EXPECT_EQ(Job(kept).state(), JOB_RUNNING);
  EXPECT_EQ(Job(lost).state(), JOB_PENDING);  // requeued (JobRequeue default)
  // A finished report is applied.
  r.clear_jobs();
  JobReport* fin = r.add_jobs();
  fin->set_job_id(kept);
  fin->set_finished(true);
  fin->set_exit_code(1);
  ASSERT_TRUE(ctl_->RegisterNode(r).ok());
  EXPECT_EQ(Job(kept).state(), JOB_FAILED);
}

TEST_F(ControllerTest, SilentNodeGoesDownAndJobsRequeueOrFail) {
  RegisterAll();
  int64_t requeue = StartOne();
  auto r = Req();
  r.mutable_spec()->set_requeue(2);
  int64_t no_requeue = StartOne(kAlice, r);
  clock_.Advance(301);
  HeartbeatRequest hb;
  hb.set_node("node02");
  ctl_->Heartbeat(hb);
  clock_.Advance(1);
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(requeue).state(), JOB_PENDING);
  EXPECT_EQ(Job(no_requeue).state(), JOB_NODE_FAIL);
  auto nodes = ctl_->GetNodes({});
  EXPECT_EQ(nodes->nodes(0).state(), NODE_DOWN);
  EXPECT_EQ(nodes->nodes(0).reason(), "Not responding");
  EXPECT_NE(nodes->nodes(1).state(), NODE_DOWN);
  hb.set_node("node01");
  EXPECT_TRUE(ctl_->Heartbeat(hb).reregister());
}

TEST_F(ControllerTest, RestartRestoresRunningJobsAndAllocations) {
  RegisterAll();
  int64_t run = StartOne(kAlice, Req(2));
  int64_t pend = Submit(kAlice, Req(2));
  int64_t pend2 = Submit(kAlice, Req(2));
  (void)pend2;
  Reopen();
  EXPECT_EQ(Job(run).state(), JOB_RUNNING);
  EXPECT_EQ(Job(run).alloc(0).gpu_ids_size(), 2);
  EXPECT_EQ(Job(pend).state(), JOB_PENDING);
  HeartbeatRequest hb;
  hb.set_node("node01");
  EXPECT_TRUE(ctl_->Heartbeat(hb).reregister());
  RegisterNodeRequest r;
  r.set_node("node01");
  r.set_cpus(4);
  r.set_real_memory_mb(1000);
  for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
  r.add_jobs()->set_job_id(run);
  ASSERT_TRUE(ctl_->RegisterNode(r).ok());
  ctl_->SchedulePass();
  EXPECT_EQ(Job(run).state(), JOB_RUNNING);
  EXPECT_EQ(Job(pend).state(), JOB_PENDING);  // node01's GPUs are still held
}

TEST_F(ControllerTest, LaunchFailureRequeuesAndDrains) {
  RegisterAll();
  int64_t id = StartOne();
  ASSERT_EQ(link_.launches.size(), 1u);
  link_.launches[0].done(Internal("cannot fork stepd"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  auto n = ctl_->GetNodes({});
  EXPECT_TRUE(n->nodes(0).drain());
  EXPECT_EQ(n->nodes(0).reason(), "cannot fork stepd");
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).alloc(0).node(), "node02");
}

TEST_F(ControllerTest, UpdateNodeRules) {
  UpdateNodeRequest r;
  r.add_names("node01");
  r.set_state("DRAIN");
  EXPECT_EQ(ctl_->UpdateNode({0, 0}, r).message(), kMsgNeedReason);
  r.set_state("BOGUS");
  EXPECT_EQ(ctl_->UpdateNode({0, 0}, r).message(), kMsgBadNodeState);
  r.set_state("drain");
  r.set_reason("disk");
  ASSERT_TRUE(ctl_->UpdateNode({0, 0}, r).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  Reopen();
  EXPECT_TRUE(ctl_->GetNodes({})->nodes(0).drain());
  r.set_state("RESUME");
  ASSERT_TRUE(ctl_->UpdateNode({0, 0}, r).ok());
  EXPECT_FALSE(ctl_->GetNodes({})->nodes(0).drain());
}

TEST_F(ControllerTest, GetNodesSendsOnlyTheNodesOfThePartitionsAsked) {
  auto count = [&](std::vector<std::string> names, std::vector<std::string> partitions) {
    GetNodesRequest q;
    for (const std::string& n : names) q.add_names(n);
    for (const std::string& p : partitions) q.add_partitions(p);
    auto reply = ctl_->GetNodes(q);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    return reply.ok() ? reply->nodes_size() : -1;
  };
  EXPECT_EQ(count({}, {}), 2);
  EXPECT_EQ(count({}, {"gpu"}), 2);
  EXPECT_EQ(count({}, {"nosuch"}), 0);
  EXPECT_EQ(count({}, {"nosuch", "closed"}), 2);  // any of them
  EXPECT_EQ(count({"node01"}, {"gpu"}), 1);
  EXPECT_EQ(count({"node01"}, {"nosuch"}), 0);  // the node exists: not an error
  GetNodesRequest unknown;
  unknown.add_names("node09");
  unknown.add_partitions("gpu");
  EXPECT_EQ(ctl_->GetNodes(unknown).status().message(), "Node node09 not found");
}

TEST_F(ControllerTest, DownPartitionQueuesButDoesNotStart) {
  RegisterAll();
  auto r = Req();
  r.mutable_spec()->set_partition("closed");
  int64_t id = Submit(kAlice, r);
  ctl_->SchedulePass();
  EXPECT_EQ(Job(id).state(), JOB_PENDING);
  EXPECT_EQ(Job(id).reason(), "PartitionDown");
}

TEST_F(ControllerTest, FinishedJobsArePurgedToHistory) {
  RegisterAll();
  int64_t id = StartOne();
  EndJob(id, 0);
  clock_.Advance(301);
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id), nullptr);
  EXPECT_TRUE(store_->LoadHistoryJob(id)->has_value());
  EXPECT_FALSE(ctl_->GetJobs([&] {
                     GetJobsRequest g;
                     g.add_job_ids(id);
                     return g;
                   }())
                   .ok());
}

// ---- job steps and interactive allocations (step_ops.cc) ----

StepRequest StepReq(int64_t job_id) {
  StepRequest r;
  r.set_job_id(job_id);
  r.add_argv("hostname");
  r.set_io_host("10.0.0.9");
  r.set_io_port(4000);
  r.set_io_key("k");
  return r;
}

// A step launch whose outcome is unknown on one node fails for srun, and that node is
// told to kill the step (and never start it); a refused one needs no kill.
TEST_F(ControllerTest, StepLaunchWithUnknownOutcomeIsKilledOnThatNode) {
  int64_t id = StartOnBothNodes();
  link_.task_results["node02"] = UnknownOutcome("Socket closed");
  link_.task_errors["node01"] = "cannot start sluice-stepd";
  auto s0 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s0.ok()) << s0.status().message();
  ASSERT_TRUE(ctl_->Commit().ok());
  std::vector<std::string> errors;
  s0->latch->OnDone([&](const std::vector<std::string>& e) { errors = e; });
  EXPECT_EQ(errors.size(), 2u);
  ASSERT_TRUE(ctl_->Commit().ok());
  int kills = 0;
  for (const auto& [to, sig] : link_.signals) {
    if (sig.kind() != SIGNAL_KILL_STALE) continue;
    ++kills;
    EXPECT_EQ(to.node, "node02");
    EXPECT_EQ(sig.job_id(), id);
    ASSERT_TRUE(sig.has_step_id());
    EXPECT_EQ(sig.step_id(), s0->reply.step_id());
  }
  EXPECT_EQ(kills, 1);
}

// scancel JOB.STEP: each node of that step is told to cancel that step (or signal it);
// the job keeps running. Another user's request, a step that does not run and a job
// that does not run are refused.
TEST_F(ControllerTest, CancelOfOneStepGoesToItsNodesOnly) {
  int64_t id = StartOnBothNodes();
  ASSERT_TRUE(ctl_->CreateStep({kAlice, kAlice}, StepReq(id)).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  link_.signals.clear();
  auto cancel = [&](uint32_t uid, int64_t job, int32_t step, int sig) {
    CancelRequest req;
    StepRef* ref = req.add_steps();
    ref->set_job_id(job);
    ref->set_step_id(step);
    req.set_signal(sig);
    CancelReply rep = ctl_->Cancel({uid, uid}, req);
    EXPECT_TRUE(ctl_->Commit().ok());
    EXPECT_EQ(rep.results_size(), 1);
    return rep.results(0);
  };
  CancelResult ok = cancel(kAlice, id, 0, 0);
  EXPECT_EQ(ok.code(), 0) << ok.message();
  EXPECT_EQ(ok.step_id(), 0);
  std::set<std::string> told;
  for (const auto& [to, sig] : link_.signals) {
    EXPECT_EQ(sig.kind(), SIGNAL_CANCEL);
    EXPECT_EQ(sig.job_id(), id);
    ASSERT_TRUE(sig.has_step_id());
    EXPECT_EQ(sig.step_id(), 0);
    told.insert(to.node);
  }
  EXPECT_EQ(told, (std::set<std::string>{"node01", "node02"}));
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  link_.signals.clear();
  EXPECT_EQ(cancel(kAlice, id, 0, 10).code(), 0);
  ASSERT_EQ(link_.signals.size(), 2u);
  EXPECT_EQ(link_.signals[0].second.kind(), SIGNAL_DELIVER);
  EXPECT_EQ(link_.signals[0].second.signal(), 10);
  link_.signals.clear();
  EXPECT_EQ(cancel(kAlice + 1, id, 0, 0).message(), kMsgAccessDenied);
  EXPECT_EQ(cancel(kAlice, id, 7, 0).message(), kMsgInvalidJobId);
  EXPECT_EQ(cancel(kAlice, id + 100, 0, 0).message(), kMsgInvalidJobId);
  EXPECT_TRUE(link_.signals.empty());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
}

TEST_F(ControllerTest, StepsGetIncreasingIdsAndFanOutToEveryStepNode) {
  int64_t id = StartOnBothNodes(/*tasks_per_node=*/2);
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_EQ(link_.launches.size(), 1u);  // the batch script runs on the batch host only

  auto s0 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s0.ok()) << s0.status().message();
  EXPECT_TRUE(link_.tasks.empty());  // sent only after the commit
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(s0->reply.step_id(), 0);
  EXPECT_EQ(s0->reply.ntasks(), 4);
  EXPECT_GE(s0->reply.master_port(), 20000);
  EXPECT_LT(s0->reply.master_port(), 30000);
  std::vector<std::string> errors{"not answered"};
  s0->latch->OnDone([&](const std::vector<std::string>& e) { errors = e; });
  EXPECT_TRUE(errors.empty());  // both (fake) agents answered
  ASSERT_EQ(link_.tasks.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const StepLaunch& l = link_.tasks[i].launch();
    EXPECT_EQ(l.node_index(), i);
    EXPECT_EQ(l.local().node(), i == 0 ? "node01" : "node02");
    EXPECT_EQ(l.task_ids(0), 2 * i);
    EXPECT_EQ(l.task_ids(1), 2 * i + 1);
    EXPECT_EQ(l.master_port(), s0->reply.master_port());
    EXPECT_EQ(l.launch_node_ipaddr(), "10.0.0.9");
    EXPECT_EQ(l.ntasks_per_node(), 2);
    EXPECT_TRUE(l.pytorch_env());
  }
  // Step 0 holds every CPU of the allocation (no --exact): step 1 waits until it ends.
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, StepReq(id)).status().code(),
            Code::kResourceExhausted);
  EndStep(id, 0);
  auto s1 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s1.ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(s1->reply.step_id(), 1);
  Reopen();  // step ids are journaled in blocks of 32: a recovered job never reuses one
  EXPECT_EQ(Job(id).next_step_id(), 32);
}

// A restarted controller learns the running steps from the agents' registrations: their
// resources stay held (a step wanting them waits) until srun ends them.
TEST_F(ControllerTest, RegistrationRestoresRunningStepsAfterARestart) {
  RegisterAll();
  int64_t id = Submit(kAlice, Req(2));
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  auto s0 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s0.ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  const NodeAlloc alloc = Job(id).alloc(0);
  Reopen();  // steps are not journaled: the new instance knows none
  EXPECT_EQ(ctl_->steps().Of(id), nullptr);
  RegisterNodeRequest r;
  r.set_node(alloc.node());
  r.set_cpus(4);
  r.set_real_memory_mb(1000);
  for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
  *r.add_jobs() = JobReport();
  r.mutable_jobs(0)->set_job_id(id);
  RunningStep* step = r.add_running_steps();
  step->set_job_id(id);
  step->set_step_id(0);
  *step->mutable_cpu_ids() = alloc.cpu_ids();
  *step->mutable_gpu_ids() = alloc.gpu_ids();
  step->set_name("hostname");
  step->set_ntasks(1);
  ASSERT_TRUE(ctl_->RegisterNode(r).ok());
  ASSERT_TRUE(ctl_->RegisterNode(r).ok());  // a second registration adds nothing
  ASSERT_NE(ctl_->steps().Of(id), nullptr);
  ASSERT_EQ(ctl_->steps().Of(id)->size(), 1u);
  EXPECT_EQ(ctl_->steps().Of(id)->at(0).use.size(), 1u);
  EXPECT_EQ(ctl_->steps().Of(id)->at(0).name, "hostname");
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, StepReq(id)).status().code(),
            Code::kResourceExhausted);
  EndStep(id, 0);
  auto s1 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s1.ok()) << s1.status().message();
  EXPECT_EQ(s1->reply.step_id(), 32);  // after the journaled block of ids
}

TEST_F(ControllerTest, StepsAreRefusedForOthersPendingOrFinishedJobs) {
  RegisterAll();
  int64_t id = Submit();
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, StepReq(id)).status().code(),
            Code::kFailedPrecondition);  // still pending
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->CreateStep({kBob, kBob}, StepReq(id)).status().message(), kMsgAccessDenied);
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, StepReq(999)).status().message(), kMsgInvalidJobId);
  StepRequest no_cmd = StepReq(id);
  no_cmd.clear_argv();
  EXPECT_FALSE(ctl_->CreateStep({kAlice, kAlice}, no_cmd).ok());
  StepRequest too_big = StepReq(id);
  too_big.set_nodes(2);
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, too_big).status().message(), kMsgStepNodeConfig);
  EndJob(id, 0);
  EXPECT_EQ(ctl_->CreateStep({kAlice, kAlice}, StepReq(id)).status().message(), kMsgAlreadyDone);
}

TEST_F(ControllerTest, InteractiveAllocationRunsNoScriptAndEndsOnRelease) {
  RegisterAll();
  SubmitRequest r;
  r.mutable_spec()->set_interactive(true);
  r.mutable_spec()->set_work_dir("/home/alice");
  int64_t id = Submit(kAlice, r);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  EXPECT_TRUE(link_.launches.empty());
  ReleaseAllocationRequest rel;
  rel.set_job_id(id);
  rel.set_exit_code(3);
  EXPECT_EQ(ctl_->ReleaseAllocation({kBob, kBob}, rel).message(), kMsgAccessDenied);
  ASSERT_TRUE(ctl_->ReleaseAllocation({kAlice, kAlice}, rel).ok());
  EXPECT_EQ(Job(id).state(), JOB_FAILED);
  EXPECT_EQ(Job(id).exit_code(), 3);
  EXPECT_FALSE(Job(id).completing());
  EXPECT_TRUE(ctl_->ReleaseAllocation({kAlice, kAlice}, rel).ok());  // idempotent
}

TEST_F(ControllerTest, CancellingAnInteractiveAllocationEndsItAtOnce) {
  RegisterAll();
  SubmitRequest r;
  r.mutable_spec()->set_interactive(true);
  int64_t id = Submit(kAlice, r);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  CancelRequest c;
  c.add_job_ids(id);
  ctl_->Cancel({kAlice, kAlice}, c);
  EXPECT_EQ(Job(id).state(), JOB_CANCELLED);
  EXPECT_FALSE(Job(id).completing());
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_FALSE(link_.signals.empty());  // the nodes kill the allocation's steps
  EXPECT_EQ(link_.signals.back().second.kind(), SIGNAL_CANCEL);
  SubmitRequest batch = Req();
  EXPECT_TRUE(Submit(kAlice, batch) > 0);  // resources were released
}

}  // namespace
}  // namespace sluice::ctld

namespace sluice::ctld {
namespace {

TEST_F(ControllerTest, SilentClientsLoseTheirStepsAndInteractiveAllocations) {
  RegisterAll();
  SubmitRequest r;
  r.mutable_spec()->set_interactive(true);
  r.mutable_spec()->set_work_dir("/home/alice");
  int64_t id = Submit(kAlice, r);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(Job(id).state(), JOB_RUNNING);
  ctl_->Tick();  // arms the allocation's lease
  auto s0 = ctl_->CreateStep({kAlice, kAlice}, StepReq(id));
  ASSERT_TRUE(s0.ok()) << s0.status().message();
  ASSERT_TRUE(ctl_->Commit().ok());
  GetStepsReply steps = ctl_->GetSteps({});
  ASSERT_EQ(steps.steps_size(), 1);
  EXPECT_EQ(steps.steps(0).step_id(), 0);
  EXPECT_EQ(steps.steps(0).state(), "RUNNING");
  KeepaliveRequest alive;
  alive.set_job_id(id);
  EXPECT_EQ(ctl_->Keepalive({kBob, kBob}, alive).message(), kMsgAccessDenied);
  for (int i = 0; i < 3; ++i) {  // the client keeps the allocation but not the step alive
    clock_.Advance(3);
    ASSERT_TRUE(ctl_->Keepalive({kAlice, kAlice}, alive).ok());
    ctl_->Tick();
  }
  EXPECT_EQ(ctl_->GetSteps({}).steps_size(), 0);  // step lease (5 s) ran out
  EXPECT_EQ(Job(id).state(), JOB_RUNNING);
  clock_.Advance(6);  // now the client is gone too
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(Job(id).state(), JOB_CANCELLED);
}

// sacct's "CANCELLED by <uid>": the uid whose request cancelled the job (root here,
// not the owner), kept across a restart; a signal is not a cancel.
TEST_F(ControllerTest, CancelRecordsTheCaller) {
  RegisterAll();
  int64_t run = StartOne(kAlice, Req(2));
  int64_t pend = Submit(kAlice, Req(2));
  int64_t own = Submit(kAlice, Req(2));
  CancelRequest sig;
  sig.add_job_ids(run);
  sig.set_signal(10);
  ctl_->Cancel({0, 0}, sig);
  EXPECT_FALSE(Job(run).has_cancelled_by());
  CancelRequest req;
  req.add_job_ids(run);
  req.add_job_ids(pend);
  EXPECT_EQ(ctl_->Cancel({0, 0}, req).results(1).code(), 0);
  CancelRequest mine;
  mine.add_job_ids(own);
  EXPECT_EQ(ctl_->Cancel({kAlice, kAlice}, mine).results(0).code(), 0);
  ASSERT_TRUE(ctl_->Commit().ok());
  EndJob(run, 0, JOB_CANCELLED);
  Reopen();
  for (int64_t id : {run, pend}) {
    EXPECT_EQ(Job(id).state(), JOB_CANCELLED);
    ASSERT_TRUE(Job(id).has_cancelled_by()) << id;
    EXPECT_EQ(Job(id).cancelled_by(), 0u) << id;
  }
  EXPECT_EQ(Job(own).cancelled_by(), kAlice);
}

}  // namespace
}  // namespace sluice::ctld

namespace sluice::ctld {
namespace {

// A batch submission waits out the debounce before its pass; an interactive one (srun,
// salloc waiting for their allocation) gets its pass right away.
TEST_F(ControllerTest, InteractiveSubmitSchedulesWithoutTheDebounce) {
  RegisterAll();
  ctl_->SchedulePass();
  int64_t now = clock_.NowMs();
  ASSERT_FALSE(ctl_->ScheduleDue(now));
  Submit();
  EXPECT_FALSE(ctl_->ScheduleDue(now));  // debounced
  EXPECT_GT(ctl_->NextWakeMs(now), now);
  SubmitRequest r = Req();
  r.mutable_spec()->set_interactive(true);
  r.mutable_spec()->clear_script();
  Submit(kAlice, r);
  EXPECT_TRUE(ctl_->ScheduleDue(now));
  EXPECT_EQ(ctl_->NextWakeMs(now), now);
  ctl_->SchedulePass();
  EXPECT_FALSE(ctl_->ScheduleDue(clock_.NowMs()));  // a pass clears the urgency
}

}  // namespace
}  // namespace sluice::ctld
