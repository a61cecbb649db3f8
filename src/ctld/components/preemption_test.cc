#include "ctld/components/preemption.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

Config TwoTiers(PreemptType type) {
  Config c;
  c.preempt_type = type;
  c.preempt_mode = PreemptMode::kRequeue;
  c.preempt_exempt_time_s = 30;
  PartitionConfig low;
  low.name = "low";
  low.priority_tier = 1;
  low.grace_time_s = 60;  // mode: the cluster's
  PartitionConfig high;
  high.name = "high";
  high.priority_tier = 5;
  high.preempt_mode = PreemptMode::kOff;
  c.partitions = {low, high};
  return c;
}

JobInfo Job(int64_t id, const std::string& partition, const std::string& qos = "") {
  JobInfo j;
  j.set_job_id(id);
  j.mutable_spec()->set_partition(partition);
  j.mutable_spec()->set_qos(qos);
  return j;
}

std::string QosOf(const JobInfo& j) { return j.spec().qos().empty() ? "normal" : j.spec().qos(); }

TEST(PreemptionTest, PartitionPrioTakesModeAndGraceFromThePartition) {
  Config c = TwoTiers(PreemptType::kPartitionPrio);
  Preemption p(&c, QosOf);
  EXPECT_TRUE(p.enabled());
  EXPECT_EQ(p.VictimMode(Job(1, "low")), PreemptMode::kRequeue);  // CLUSTER -> cluster mode
  EXPECT_EQ(p.VictimGrace(Job(1, "low")), 60);
  EXPECT_EQ(p.VictimMode(Job(2, "high")), PreemptMode::kOff);
  EXPECT_EQ(p.VictimGrace(Job(2, "high")), 0);
  EXPECT_EQ(p.VictimMode(Job(3, "nosuch")), PreemptMode::kRequeue);
}

TEST(PreemptionTest, QosTypeTakesModeAndGraceFromTheQosObjects) {
  Config c = TwoTiers(PreemptType::kQos);
  std::map<std::string, QosInfo> qos;
  qos["scavenger"].set_preempt_mode(QOS_PREEMPT_CANCEL);
  qos["scavenger"].set_grace_time_s(15);
  qos["urgent"].add_preempt("scavenger");
  qos["normal"];  // no PreemptMode: the cluster's
  Preemption p(&c, QosOf);
  p.SetQosRules(QosPreemptRules(qos));
  EXPECT_EQ(p.VictimMode(Job(1, "high", "scavenger")),
            PreemptMode::kCancel);  // not the partition's OFF
  EXPECT_EQ(p.VictimGrace(Job(1, "high", "scavenger")), 15);
  EXPECT_EQ(p.VictimMode(Job(2, "low")), PreemptMode::kRequeue);
  EXPECT_EQ(p.VictimGrace(Job(2, "low")), 0);  // not the partition's 60
  EXPECT_EQ(p.VictimMode(Job(3, "low", "unknown")), PreemptMode::kRequeue);
  sched::PreemptRules rules = QosPreemptRules(qos);
  EXPECT_EQ(rules["urgent"].preempts, (std::set<std::string>{"scavenger"}));
  EXPECT_EQ(rules["normal"].mode, PreemptMode::kCluster);
}

TEST(PreemptionTest, FillsTheSchedulerInputsAndPutsTheLastPreemptorsFirst) {
  Config c = TwoTiers(PreemptType::kPartitionPrio);
  Preemption p(&c, QosOf);
  JobTable jobs;
  JobInfo victim = Job(1, "low", "scavenger");
  victim.set_state(JOB_RUNNING);
  victim.set_priority(10);
  victim.set_start_time(1000);
  jobs.Insert(victim);
  JobInfo leaving = Job(2, "high");
  leaving.set_state(JOB_RUNNING);
  leaving.set_preempt_time(1500);  // already chosen as a victim
  jobs.Insert(leaving);
  for (int64_t id : {3, 4, 5}) {
    JobInfo j = Job(id, id == 5 ? "high" : "low");
    j.set_state(JOB_PENDING);
    jobs.Insert(j);
  }
  sched::ClusterSnapshot snap;
  snap.running.resize(2);
  snap.running[0].job_id = 1;
  snap.running[1].job_id = 2;
  std::vector<sched::JobRequest> pending(3);
  for (int i = 0; i < 3; ++i) pending[i].job_id = 3 + i;

  sched::Plan plan;
  plan.preemptions.push_back({5, {1}, {}});  // job 5 preempts job 1
  p.PassPlanned(plan);
  EXPECT_EQ(p.preemptors(), (std::set<int64_t>{5}));
  p.FillInputs(jobs, &snap, &pending);

  EXPECT_EQ(snap.preempt.type, PreemptType::kPartitionPrio);
  EXPECT_EQ(snap.preempt.exempt_s, 30);
  EXPECT_EQ(snap.running[0].priority, 10);
  EXPECT_EQ(snap.running[0].start_time, 1000);
  EXPECT_EQ(snap.running[0].priority_tier, 1);
  EXPECT_EQ(snap.running[0].qos, "scavenger");
  EXPECT_FALSE(snap.running[0].preempt_off);
  EXPECT_FALSE(snap.running[0].being_preempted);
  EXPECT_TRUE(snap.running[1].preempt_off);  // partition high: OFF
  EXPECT_TRUE(snap.running[1].being_preempted);
  std::vector<int64_t> order;
  for (const sched::JobRequest& q : pending) order.push_back(q.job_id);
  EXPECT_EQ(order, (std::vector<int64_t>{5, 3, 4}));
  EXPECT_EQ(pending[0].priority_tier, 5);
  EXPECT_EQ(pending[1].qos, "normal");

  p.PassPlanned({});  // a pass without preemptions forgets them
  EXPECT_TRUE(p.preemptors().empty());
}

TEST(PreemptionTest, OffFillsOnlyTheType) {
  Config c = TwoTiers(PreemptType::kNone);
  Preemption p(&c, QosOf);
  EXPECT_FALSE(p.enabled());
  JobTable jobs;
  sched::ClusterSnapshot snap;
  snap.running.resize(1);
  snap.running[0].job_id = 7;
  std::vector<sched::JobRequest> pending(1);
  p.FillInputs(jobs, &snap, &pending);
  EXPECT_EQ(snap.preempt.type, PreemptType::kNone);
  EXPECT_EQ(snap.running[0].priority_tier, 0);
}

}  // namespace
}  // namespace sluice::ctld
