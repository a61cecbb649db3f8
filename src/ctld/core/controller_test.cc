// The Controller's job lifecycle: ids, durability at commit, validation messages,
// scheduling and launch after commit, ends, cancel, hold, time limits, requeue,
// reconciliation at registration, silent nodes, restarts, node updates, purging.
#include <gtest/gtest.h>

#include <set>

#include "common/slurm_format.h"
#include "ctld/components/step_layout.h"
#include "ctld/components/validate.h"
#include "ctld/testing/controller_fixture.h"

namespace sluice::ctld {
namespace {

using testing::ControllerTest;
using testing::kAlice;
using testing::kBob;

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

// A pipelined commit (owner_loop.h) writes a job's end while the owner thread goes on: the
// job is not purged until that record is durable, so a failed write is retried with the
// job still there and its history holds its end.
TEST_F(ControllerTest, AJobIsNotPurgedWhileItsLastRecordIsBeingWritten) {
  RegisterAll();
  int64_t id = StartOne();
  JobEndedRequest e;
  e.set_node(Job(id).alloc(0).node());
  e.mutable_report()->set_job_id(id);
  e.mutable_report()->set_finished(true);
  ASSERT_TRUE(ctl_->JobEnded(e).ok());
  Controller::PreparedCommit writing = ctl_->PrepareCommit();
  clock_.Advance(301);
  ctl_->Tick();
  ASSERT_NE(ctl_->jobs().Find(id), nullptr);
  EXPECT_TRUE(ctl_->FinishCommit(std::move(writing), Internal("disk full")).empty());
  ASSERT_TRUE(ctl_->Commit().ok());
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id), nullptr);
  auto history = store_->LoadHistoryJob(id);
  ASSERT_TRUE(history.ok() && history->has_value());
  EXPECT_EQ((*history)->state(), JOB_COMPLETED);
}

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
