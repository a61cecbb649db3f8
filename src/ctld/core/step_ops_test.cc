// The Controller's job steps and interactive allocations (step_ops.cc,
// step_lease_ops.cc): launch outcomes, cancels, ids and fan-out, restore after a restart,
// refusals, interactive allocations and the client leases that keep them.
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

// squeue -s filters at the controller: job ids, JOB.STEP lists, users and partitions, ANDed.
TEST_F(ControllerTest, GetStepsFiltersByJobStepUserAndPartition) {
  RegisterAll();
  const int64_t a = StartOne(kAlice), c = StartOne(kAlice), b = StartOne(kBob);
  for (auto [job, uid] : {std::pair{a, kAlice}, {c, kAlice}, {b, kBob}}) {
    ASSERT_TRUE(ctl_->CreateStep({uid, uid}, StepReq(job)).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  auto shown = [&](const GetStepsRequest& req) {
    std::vector<std::string> out;
    const GetStepsReply reply = ctl_->GetSteps(req);
    for (const StepInfo& s : reply.steps())
      out.push_back(std::to_string(s.job_id()) + "." + std::to_string(s.step_id()));
    return out;
  };
  auto name = [](int64_t job) { return std::to_string(job) + ".0"; };
  EXPECT_EQ(shown({}), (std::vector<std::string>{name(a), name(c), name(b)}));
  GetStepsRequest bob;
  bob.add_uids(kBob);
  EXPECT_EQ(shown(bob), (std::vector<std::string>{name(b)}));
  GetStepsRequest listed;
  StepRef* r = listed.add_steps();
  r->set_job_id(c);
  r->set_step_id(0);
  EXPECT_EQ(shown(listed), (std::vector<std::string>{name(c)}));
  r->set_step_id(1);
  EXPECT_TRUE(shown(listed).empty());
  r->set_step_id(-1);  // every step of c
  EXPECT_EQ(shown(listed), (std::vector<std::string>{name(c)}));
  listed.add_uids(kBob);  // and Bob's: none
  EXPECT_TRUE(shown(listed).empty());
  GetStepsRequest job_and_list;
  job_and_list.add_job_ids(b);
  *job_and_list.add_steps() = listed.steps(0);
  EXPECT_TRUE(shown(job_and_list).empty());
  GetStepsRequest part;
  part.add_partitions("closed");
  EXPECT_TRUE(shown(part).empty());
  part.add_partitions("gpu");
  EXPECT_EQ(shown(part).size(), 3u);
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
