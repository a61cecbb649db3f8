// Preemption in the controller (preempt_ops.cc): partition_prio with REQUEUE and CANCEL,
// grace time signals (SIGCONT+SIGTERM or the job's --signal), the kill after the grace
// time, no over-allocation while victims still run, no second choice of a victim,
// ends during the grace time, and preempt/qos from the controller's QOS rule table.
#include <gtest/gtest.h>

#include <csignal>

#include "ctld/testing/controller_harness.h"
#include "sched/scheduler.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;

Config PreemptConfig(PreemptMode mode, int64_t grace) {
  Config c = testing::SmallCluster({"node01", "node02"}, "low");
  c.partitions[0].priority_tier = 1;
  c.partitions[0].preempt_mode = mode;
  c.partitions[0].grace_time_s = grace;
  PartitionConfig high = c.partitions[0];
  high.name = "high";
  high.is_default = false;
  high.priority_tier = 10;
  high.preempt_mode = PreemptMode::kCluster;
  high.grace_time_s = 0;
  c.partitions.push_back(high);
  c.preempt_type = PreemptType::kPartitionPrio;
  c.preempt_mode = PreemptMode::kRequeue;
  return c;
}

class PreemptTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return PreemptConfig(mode_, grace_); }

  void SetUp() override {
    testing::ControllerHarness::SetUp();
    Restart();  // with the real backfill scheduler (it plans preemptions)
  }
  void Restart() {
    ctl_.reset();
    ctl_ =
        std::make_unique<Controller>(MakeConfig(), &clock_, &store_, &link_,
                                     SchedDeps{real_.get(), testing::FakeFeasible}, MakeOptions());
    ASSERT_TRUE(ctl_->Load(false).ok());
    for (const NodeConfig& n : MakeConfig().nodes) Register(n.name);
  }

  int64_t Submit(const std::string& partition, int cpus, const std::string& qos = "",
                 const std::string& signal = "", int requeue = 0) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\nsleep 100\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_partition(partition);
    r.mutable_spec()->set_min_nodes(1);
    r.mutable_spec()->set_cpus_per_task(cpus);
    r.mutable_spec()->set_qos(qos);
    r.mutable_spec()->set_signal(signal);
    r.mutable_spec()->set_requeue(requeue);
    r.mutable_spec()->set_time_limit_min(10);
    auto rep = ctl_->Submit({kAlice, kAlice}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }

  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void Tick(int64_t seconds) {
    clock_.Advance(seconds);
    ctl_->Tick();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  void End(int64_t id, int exit_code, int term_signal) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_exit_code(exit_code);
    e.mutable_report()->set_term_signal(term_signal);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  // Signals to job `id` sent since `from`: (kind, signal, full).
  std::vector<std::tuple<SignalKind, int, bool>> SignalsTo(int64_t id, size_t from) {
    std::vector<std::tuple<SignalKind, int, bool>> out;
    for (size_t i = from; i < link_.signals.size(); ++i) {
      const SignalJobRequest& s = link_.signals[i].second;
      if (s.job_id() == id) out.emplace_back(s.kind(), s.signal(), s.full());
    }
    return out;
  }

  // Fills both nodes with 2-CPU low jobs (4 jobs, priorities by submit order).
  std::vector<int64_t> FillLow(const std::string& qos = "", const std::string& signal = "") {
    std::vector<int64_t> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(Submit("low", 2, qos, signal));
    Pass();
    for (int64_t id : ids) EXPECT_EQ(Job(id).state(), JOB_RUNNING);
    return ids;
  }

  PreemptMode mode_ = PreemptMode::kRequeue;
  int64_t grace_ = 2;
  std::unique_ptr<sched::Scheduler> real_ = sched::MakeScheduler(sched::SchedulerConfig{});
};

TEST_F(PreemptTest, RequeueWithGraceSignalsThenKillsThenRequeuesAndStartsThePreemptor) {
  std::vector<int64_t> low = FillLow();
  size_t mark = link_.signals.size();
  int64_t high = Submit("high", 4);
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_PENDING);
  EXPECT_EQ(Job(high).reason(), "Resources");
  // Two victims on one node (a 4-CPU job needs a whole node), still running in grace.
  std::vector<int64_t> victims;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victims.push_back(id);
  }
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(Job(victims[0]).alloc(0).node(), Job(victims[1]).alloc(0).node());
  for (int64_t v : victims) {
    EXPECT_EQ(Job(v).state(), JOB_RUNNING);
    EXPECT_EQ(Job(v).preempted_by(), high);
    auto sent = SignalsTo(v, mark);
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0], std::make_tuple(SIGNAL_DELIVER, SIGCONT, true));
    EXPECT_EQ(sent[1], std::make_tuple(SIGNAL_DELIVER, SIGTERM, true));
  }
  // Passes during the grace time choose nobody else and start nothing on those CPUs.
  size_t mark2 = link_.signals.size();
  Tick(1);
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_PENDING);
  int preempting = 0;
  for (int64_t id : low) preempting += Job(id).preempt_time() > 0;
  EXPECT_EQ(preempting, 2);
  EXPECT_TRUE(SignalsTo(victims[0], mark2).empty());
  // Grace over: killed (SIGNAL_CANCEL), state COMPLETING, resources still held.
  Tick(2);
  for (int64_t v : victims) {
    EXPECT_EQ(Job(v).state(), JOB_COMPLETING);
    auto sent = SignalsTo(v, mark2);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(std::get<0>(sent[0]), SIGNAL_CANCEL);
  }
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_PENDING);  // no over-allocation
  End(victims[0], 0, SIGKILL);
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_PENDING);  // one victim still holds its CPUs
  End(victims[1], 0, SIGKILL);
  for (int64_t v : victims) {
    EXPECT_EQ(Job(v).state(), JOB_PENDING);
    EXPECT_EQ(Job(v).restarts(), 1);
    EXPECT_EQ(Job(v).preempt_time(), 0);
  }
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_RUNNING);
  // The requeued low jobs wait (and never preempt the higher tier back).
  Pass();
  for (int64_t v : victims) EXPECT_EQ(Job(v).state(), JOB_PENDING);
  EXPECT_EQ(Job(high).state(), JOB_RUNNING);
  EXPECT_EQ(Job(high).preempt_time(), 0);
  // The high job ends: they run again, appending output, restart count 1.
  End(high, 0, 0);
  Pass();
  for (int64_t v : victims) EXPECT_EQ(Job(v).state(), JOB_RUNNING);
  EXPECT_EQ(link_.launches.back().req.launch().job().restarts(), 1);
  EXPECT_TRUE(link_.launches.back().req.launch().append_output());
}

TEST_F(PreemptTest, UserSignalIsSentInsteadOfTerm) {
  FillLow("", "B:USR1@30");
  size_t mark = link_.signals.size();
  int64_t high = Submit("high", 2);
  Pass();
  int victims = 0;
  for (size_t i = mark; i < link_.signals.size(); ++i) {
    const SignalJobRequest& s = link_.signals[i].second;
    EXPECT_EQ(s.signal(), SIGUSR1);
    EXPECT_TRUE(s.batch_only());
    ++victims;
  }
  EXPECT_EQ(victims, 1);  // a 2-CPU job needs one 2-CPU victim
  EXPECT_EQ(Job(high).state(), JOB_PENDING);
}

TEST_F(PreemptTest, VictimEndingDuringGraceIsStillRequeued) {
  std::vector<int64_t> low = FillLow();
  int64_t high = Submit("high", 2);
  Pass();
  int64_t victim = 0;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victim = id;
  }
  ASSERT_NE(victim, 0);
  End(victim, 0, 0);  // checkpointed and exited by itself
  EXPECT_EQ(Job(victim).state(), JOB_PENDING);
  EXPECT_EQ(Job(victim).restarts(), 1);
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_RUNNING);
  Tick(5);  // its old grace deadline passes: nothing happens to the new state
  EXPECT_EQ(Job(victim).state(), JOB_PENDING);
}

TEST_F(PreemptTest, NoRequeueVictimIsCancelledPreempted) {
  std::vector<int64_t> low;
  for (int i = 0; i < 4; ++i) low.push_back(Submit("low", 2, "", "", /*requeue=*/2));
  Pass();
  int64_t high = Submit("high", 2);
  Pass();
  int64_t victim = 0;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victim = id;
  }
  ASSERT_NE(victim, 0);
  EXPECT_EQ(Job(victim).state(), JOB_RUNNING);  // GraceTime=2
  Tick(2);
  EXPECT_EQ(Job(victim).state(), JOB_PREEMPTED);
  EXPECT_TRUE(Job(victim).completing());
  End(victim, 0, SIGKILL);
  EXPECT_EQ(Job(victim).state(), JOB_PREEMPTED);
  EXPECT_EQ(Job(victim).exit_code(), 0);
  EXPECT_EQ(Job(victim).term_signal(), SIGTERM);
  EXPECT_FALSE(Job(victim).completing());
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_RUNNING);
}

class PreemptCancelTest : public PreemptTest {
 protected:
  PreemptCancelTest() {
    mode_ = PreemptMode::kCancel;
    grace_ = 0;
  }
};

TEST_F(PreemptCancelTest, CancelWithoutGraceKillsAtOnceStatePreempted) {
  std::vector<int64_t> low = FillLow();
  int64_t high = Submit("high", 2);
  Pass();
  std::vector<int64_t> victims;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victims.push_back(id);
  }
  ASSERT_EQ(victims.size(), 1u);
  EXPECT_EQ(Job(victims[0]).state(), JOB_PREEMPTED);
  EXPECT_EQ(Job(high).state(), JOB_PENDING);
  End(victims[0], 0, SIGKILL);
  EXPECT_EQ(Job(victims[0]).state(), JOB_PREEMPTED);
  EXPECT_EQ(Job(victims[0]).exit_code(), 0);
  EXPECT_EQ(Job(victims[0]).term_signal(), SIGTERM);
  EXPECT_EQ(JobStateName(Job(victims[0]).state()), std::string("PREEMPTED"));
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_RUNNING);
}

TEST_F(PreemptCancelTest, SameTierNeverPreempts) {
  FillLow();
  int64_t other = Submit("low", 2);
  Pass();
  EXPECT_EQ(Job(other).state(), JOB_PENDING);
  for (const auto& [id, job] : ctl_->jobs().jobs()) EXPECT_EQ(job.preempt_time(), 0);
}

class PreemptOffTest : public PreemptTest {
 protected:
  PreemptOffTest() { mode_ = PreemptMode::kOff; }
};

TEST_F(PreemptOffTest, PartitionModeOffProtectsItsJobs) {
  FillLow();
  int64_t high = Submit("high", 2);
  Pass();
  EXPECT_EQ(Job(high).state(), JOB_PENDING);
  for (const auto& [id, job] : ctl_->jobs().jobs()) EXPECT_EQ(job.preempt_time(), 0);
}

class PreemptQosTest : public PreemptTest {
 protected:
  Config MakeConfig() const override {
    Config c = PreemptConfig(PreemptMode::kCluster, 0);
    c.preempt_type = PreemptType::kQos;
    c.preempt_mode = PreemptMode::kCancel;
    return c;
  }
};

TEST_F(PreemptQosTest, QosRuleTableDecidesWhoAndHow) {
  std::vector<int64_t> low = FillLow("scavenger");
  int64_t normal = Submit("low", 2, "normal");
  Pass();
  EXPECT_EQ(Job(normal).state(), JOB_PENDING);  // no rules yet: nobody preempts
  for (int64_t id : low) EXPECT_EQ(Job(id).preempt_time(), 0);

  sched::PreemptRules rules;
  rules["normal"].preempts = {"scavenger"};
  rules["scavenger"].mode = PreemptMode::kRequeue;
  rules["scavenger"].grace_s = 5;
  ctl_->SetQosPreemptRules(rules);
  size_t mark = link_.signals.size();
  Pass();
  std::vector<int64_t> victims;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victims.push_back(id);
  }
  ASSERT_EQ(victims.size(), 1u);  // same partition: tiers mean nothing under preempt/qos
  EXPECT_EQ(Job(victims[0]).state(), JOB_RUNNING);  // 5 s of grace (the QOS's)
  EXPECT_EQ(SignalsTo(victims[0], mark).size(), 2u);
  Tick(5);
  EXPECT_EQ(Job(victims[0]).state(), JOB_COMPLETING);  // REQUEUE (the QOS's mode)
  End(victims[0], 0, SIGKILL);
  EXPECT_EQ(Job(victims[0]).state(), JOB_PENDING);
  Pass();
  EXPECT_EQ(Job(normal).state(), JOB_RUNNING);
  // The requeued scavenger job does not preempt the normal one back.
  Pass();
  EXPECT_EQ(Job(victims[0]).state(), JOB_PENDING);
  EXPECT_EQ(Job(normal).preempt_time(), 0);
}

TEST_F(PreemptQosTest, SacctmgrQosObjectsBecomeTheRules) {
  auto mgr = [this](const std::string& verb, const std::string& name,
                    std::vector<std::string> set) {
    SacctmgrRequest r;
    r.set_verb(verb);
    r.set_entity("qos");
    r.add_names(name);
    for (auto& kv : set) r.add_set(kv);
    auto reply = ctl_->Sacctmgr({0, 0}, r);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
  };
  mgr("add", "scavenger", {"preemptmode=requeue", "gracetime=5"});
  std::vector<int64_t> low = FillLow("scavenger");
  int64_t normal = Submit("low", 2, "normal");
  Pass();
  EXPECT_EQ(Job(normal).state(), JOB_PENDING);  // normal may not preempt anyone yet
  mgr("modify", "normal", {"preempt=scavenger"});
  Pass();
  int64_t victim = -1;
  for (int64_t id : low) {
    if (Job(id).preempt_time() > 0) victim = id;
  }
  ASSERT_NE(victim, -1);
  Tick(4);
  EXPECT_EQ(Job(victim).state(), JOB_RUNNING);  // the QOS's 5 s grace time
  Tick(1);
  EXPECT_EQ(Job(victim).state(), JOB_COMPLETING);
  End(victim, 0, SIGKILL);
  EXPECT_EQ(Job(victim).state(), JOB_PENDING);  // the QOS's REQUEUE, not the cluster's CANCEL
  Pass();
  EXPECT_EQ(Job(normal).state(), JOB_RUNNING);
}

}  // namespace
}  // namespace sluice::ctld
