// Tests of preemption planning (sched/preempt.h): who may preempt whom, victim choice
// (fewest, cheapest, never more than needed, never hopeless), the backfill hook, and a
// randomised property test.
#include "sched/preempt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "sched/random_cases.h"
#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;

// Adds a running job holding `cpus` CPUs (the lowest free ids) on `node`.
RunningJob& AddRunning(ClusterSnapshot* s, int64_t id, const std::string& node, int cpus, int tier,
                       int64_t priority, int64_t start = 0) {
  RunningJob r;
  r.job_id = id;
  r.priority = priority;
  r.priority_tier = tier;
  r.start_time = start;
  NodeShare share;
  share.node = node;
  for (Node& n : s->nodes) {
    if (n.name != node) continue;
    n.cpu_used.resize(n.cpus);
    for (int c = 0; c < n.cpus && static_cast<int>(share.cpu_ids.size()) < cpus; ++c) {
      if (!n.cpu_used[c]) {
        n.cpu_used[c] = true;
        share.cpu_ids.push_back(c);
      }
    }
    n.running_jobs += 1;
  }
  r.alloc.push_back(share);
  s->running.push_back(r);
  return s->running.back();
}

JobRequest HighJob(int64_t id, int nodes, int cpus, int tier = 10) {
  JobRequest j = MakeJob(id, nodes, cpus);
  j.priority_tier = tier;
  return j;
}

ClusterSnapshot PrioCluster(int nodes) {
  ClusterSnapshot s = MakeCluster(nodes);
  s.preempt.type = PreemptType::kPartitionPrio;
  return s;
}

TEST(Preempt, PreemptorsOfTheLastPassGoFirstTheRestKeepTheirOrder) {
  std::vector<JobRequest> pending(5);
  for (int i = 0; i < 5; ++i) pending[i].job_id = 10 + i;
  EXPECT_EQ(PreemptorsFirst(pending, {13, 11}), (std::vector<size_t>{1, 3, 0, 2, 4}));
  EXPECT_EQ(PreemptorsFirst(pending, {}), (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(PreemptorsFirst(pending, {99}), (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(Preempt, PartitionPrioTakesTheCheapestNode) {
  ClusterSnapshot s = PrioCluster(2);
  AddRunning(&s, 1, "node1", 4, 1, 1);
  AddRunning(&s, 2, "node1", 4, 1, 5);
  AddRunning(&s, 3, "node2", 4, 1, 2);
  AddRunning(&s, 4, "node2", 4, 1, 3);
  VictimChoice c = ChooseVictims(s, HighJob(10, 1, 8), 100);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{3, 4}));  // priority sum 5 < 6
  ASSERT_EQ(c.alloc.size(), 1u);
  EXPECT_EQ(c.alloc[0].node, "node2");
}

TEST(Preempt, FewestVictimsWinOverLowPriority) {
  ClusterSnapshot s = PrioCluster(2);
  AddRunning(&s, 1, "node1", 8, 1, 100);
  for (int i = 0; i < 4; ++i) AddRunning(&s, 2 + i, "node2", 2, 1, 1);
  VictimChoice c = ChooseVictims(s, HighJob(10, 1, 8), 100);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{1}));
}

TEST(Preempt, NeverMoreThanNeededLowestPriorityYoungestFirst) {
  ClusterSnapshot s = PrioCluster(1);
  for (int i = 0; i < 8; ++i) AddRunning(&s, 1 + i, "node1", 1, 1, i < 4 ? 5 : 7, 10 + i);
  VictimChoice c = ChooseVictims(s, HighJob(20, 1, 2), 100);
  ASSERT_TRUE(c.fits);
  // priority 5 jobs are 1..4; the youngest (latest start) of them first: 4, then 3.
  EXPECT_EQ(c.victims, (std::vector<int64_t>{4, 3}));
}

TEST(Preempt, EqualOrHigherTierIsNeverAVictim) {
  ClusterSnapshot s = PrioCluster(1);
  AddRunning(&s, 1, "node1", 4, 10, 1);  // same tier
  AddRunning(&s, 2, "node1", 4, 20, 1);  // higher tier
  VictimChoice c = ChooseVictims(s, HighJob(5, 1, 2), 100);
  EXPECT_FALSE(c.fits);
  EXPECT_TRUE(c.victims.empty());
}

TEST(Preempt, HopelessMeansNoVictims) {
  ClusterSnapshot s = PrioCluster(2);
  AddRunning(&s, 1, "node1", 4, 1, 1);
  AddRunning(&s, 2, "node1", 4, 10, 1);  // not preemptable: node1 never gets 8 free
  AddRunning(&s, 3, "node2", 8, 10, 1);
  VictimChoice c = ChooseVictims(s, HighJob(5, 1, 8), 100);
  EXPECT_FALSE(c.fits);
  EXPECT_TRUE(c.victims.empty());
  // A job bigger than any node never preempts either.
  EXPECT_FALSE(ChooseVictims(s, HighJob(6, 1, 9), 100).fits);
}

TEST(Preempt, JobsAlreadyBeingPreemptedCountAsGone) {
  ClusterSnapshot s = PrioCluster(1);
  AddRunning(&s, 1, "node1", 4, 1, 1).being_preempted = true;
  AddRunning(&s, 2, "node1", 4, 1, 1);
  VictimChoice c = ChooseVictims(s, HighJob(5, 1, 4), 100);
  EXPECT_TRUE(c.fits);
  EXPECT_TRUE(c.victims.empty());  // waits for job 1 to go
  c = ChooseVictims(s, HighJob(5, 1, 8), 100);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{2}));  // never job 1 again
}

TEST(Preempt, ModeOffAndExemptTimeProtect) {
  ClusterSnapshot s = PrioCluster(1);
  AddRunning(&s, 1, "node1", 4, 1, 1).preempt_off = true;
  AddRunning(&s, 2, "node1", 4, 1, 1, /*start=*/90);
  s.preempt.exempt_s = 60;
  EXPECT_FALSE(ChooseVictims(s, HighJob(5, 1, 4), 100).fits);  // job 2 is 10 s old
  VictimChoice c = ChooseVictims(s, HighJob(5, 1, 4), 200);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{2}));
}

TEST(Preempt, QosRules) {
  ClusterSnapshot s = MakeCluster(1);
  s.preempt.type = PreemptType::kQos;
  s.preempt.rules["high"].preempts = {"low"};
  AddRunning(&s, 1, "node1", 4, 1, 1).qos = "normal";
  AddRunning(&s, 2, "node1", 4, 1, 9).qos = "low";
  JobRequest j = MakeJob(5, 1, 4);
  j.qos = "high";
  VictimChoice c = ChooseVictims(s, j, 100);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{2}));  // not the lower-priority "normal" one
  j.qos = "low";
  EXPECT_FALSE(ChooseVictims(s, j, 100).fits);
  j.qos = "";
  EXPECT_FALSE(ChooseVictims(s, j, 100).fits);
  j.qos = "high";
  j.priority_tier = 99;  // tiers mean nothing under preempt/qos
  s.running[1].qos = "normal";
  EXPECT_FALSE(ChooseVictims(s, j, 100).fits);
}

TEST(Preempt, MultiNodeJobUnionOfNodes) {
  ClusterSnapshot s = PrioCluster(3);
  AddRunning(&s, 1, "node1", 8, 1, 1);
  AddRunning(&s, 2, "node2", 4, 1, 1);
  AddRunning(&s, 3, "node2", 4, 1, 1);
  AddRunning(&s, 4, "node3", 8, 1, 2);
  VictimChoice c = ChooseVictims(s, HighJob(9, 2, 8), 100);
  ASSERT_TRUE(c.fits);
  EXPECT_EQ(c.victims, (std::vector<int64_t>{1, 4}));  // one victim per node beats two
  EXPECT_EQ(c.alloc.size(), 2u);
}

TEST(Preempt, BackfillPassPlansPreemptionsWithoutDoubleCounting) {
  ClusterSnapshot s = PrioCluster(2);
  AddRunning(&s, 1, "node1", 8, 1, 1);
  AddRunning(&s, 2, "node2", 8, 1, 2);
  std::vector<JobRequest> pending = {HighJob(10, 1, 8), HighJob(11, 1, 8), HighJob(12, 1, 8)};
  auto scheduler = MakeScheduler(SchedulerConfig{});
  Plan plan = scheduler->Schedule(s, pending, 100);
  ASSERT_EQ(plan.preemptions.size(), 2u);
  EXPECT_EQ(plan.preemptions[0].preemptor, 10);
  EXPECT_EQ(plan.preemptions[0].victims, (std::vector<int64_t>{1}));
  EXPECT_EQ(plan.preemptions[1].preemptor, 11);
  EXPECT_EQ(plan.preemptions[1].victims, (std::vector<int64_t>{2}));
  for (const Decision& d : plan.decisions) EXPECT_EQ(d.outcome, Outcome::kPending);

  // Next pass: both victims are leaving; the preemptors wait (entries without victims),
  // nobody else is chosen, and job 12 cannot count on the same resources.
  for (RunningJob& r : s.running) r.being_preempted = true;
  plan = scheduler->Schedule(s, pending, 101);
  ASSERT_EQ(plan.preemptions.size(), 2u);
  EXPECT_EQ(plan.preemptions[0].preemptor, 10);
  EXPECT_TRUE(plan.preemptions[0].victims.empty());
  EXPECT_EQ(plan.preemptions[1].preemptor, 11);
  EXPECT_TRUE(plan.preemptions[1].victims.empty());

  // preempt/none: never.
  s = PrioCluster(1);
  s.preempt.type = PreemptType::kNone;
  AddRunning(&s, 1, "node1", 8, 1, 1);
  EXPECT_TRUE(scheduler->Schedule(s, {HighJob(10, 1, 8)}, 100).preemptions.empty());
}

TEST(Preempt, LaterJobsDoNotTakeThePreemptorsPlace) {
  ClusterSnapshot s = PrioCluster(2);
  AddRunning(&s, 1, "node1", 4, 1, 1);
  AddRunning(&s, 2, "node2", 8, 10, 1);
  // Job 10 (high) needs 8 CPUs: job 1 goes, and the 4 free CPUs of node1 are its too, so
  // job 11 (low, 4 CPUs, would fit there now) must wait. Job 1 never ends (no limit).
  JobRequest high = HighJob(10, 1, 8);
  JobRequest low = HighJob(11, 1, 4, 1);
  Plan plan = MakeScheduler(SchedulerConfig{})->Schedule(s, {high, low}, 100);
  ASSERT_EQ(plan.preemptions.size(), 1u);
  EXPECT_EQ(plan.preemptions[0].victims, (std::vector<int64_t>{1}));
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  // Without preemption job 11 starts there.
  s.preempt.type = PreemptType::kNone;
  plan = MakeScheduler(SchedulerConfig{})->Schedule(s, {high, low}, 100);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
}

TEST(Preempt, EarlierStartsOfThePassCount) {
  ClusterSnapshot s = PrioCluster(1);
  AddRunning(&s, 1, "node1", 4, 1, 1);
  // Job 11 comes first and starts on the 4 free CPUs; job 10 then needs job 1 and cannot
  // count on job 11's CPUs (not a running job yet): nothing to preempt that would help.
  Plan plan =
      MakeScheduler(SchedulerConfig{})->Schedule(s, {HighJob(11, 1, 4, 1), HighJob(10, 1, 8)}, 100);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_TRUE(plan.preemptions.empty());
}

// ---- randomised property test ----

ClusterSnapshot Without(ClusterSnapshot s, const std::set<int64_t>& gone) {
  std::vector<RunningJob> keep;
  for (const RunningJob& r : s.running) {
    if (gone.count(r.job_id) || r.being_preempted) {
      ReleaseAllocation(&s, r);
    } else {
      keep.push_back(r);
    }
  }
  s.running = keep;
  return s;
}

TEST(PreemptProperty, VictimsArePreemptableSufficientAndEachNeeded) {
  int with_victims = 0, hopeless = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    testing::Rng rng(seed);
    ClusterSnapshot s = testing::RandomSnapshot(rng, 5, 100);
    const bool qos = rng.Chance(30);
    s.preempt.type = qos ? PreemptType::kQos : PreemptType::kPartitionPrio;
    s.preempt.rules["hi"].preempts = {"lo", "mid"};
    s.preempt.rules["mid"].preempts = {"lo"};
    const char* qos_names[] = {"lo", "mid", "hi", ""};
    for (RunningJob& r : s.running) {
      r.priority = rng.Int(0, 5);
      r.priority_tier = rng.Int(0, 3);
      r.start_time = rng.Int(0, 99);
      r.qos = qos_names[rng.Int(0, 3)];
      r.preempt_off = rng.Chance(10);
      r.being_preempted = rng.Chance(10);
    }
    if (rng.Chance(20)) s.preempt.exempt_s = 50;
    JobRequest job = testing::RandomJob(rng, s);
    job.job_id = 1000;
    job.priority_tier = rng.Int(0, 3);
    job.qos = qos_names[rng.Int(0, 3)];
    const int64_t now = 100;

    VictimChoice c = ChooseVictims(s, job, now);
    std::vector<NodeShare> alloc;
    std::set<int64_t> all;
    for (const RunningJob& r : s.running) {
      if (MayPreempt(s.preempt, job, r, now)) all.insert(r.job_id);
    }
    SCOPED_TRACE(seed);
    if (!c.fits) {
      EXPECT_TRUE(c.victims.empty());
      EXPECT_FALSE(PlaceJob(Without(s, all), job, &alloc));  // even all of them would not do
      ++hopeless;
      continue;
    }
    std::set<int64_t> victims(c.victims.begin(), c.victims.end());
    EXPECT_EQ(victims.size(), c.victims.size());
    for (const RunningJob& r : s.running) {
      if (!victims.count(r.job_id)) continue;
      EXPECT_TRUE(MayPreempt(s.preempt, job, r, now)) << r.job_id;
      EXPECT_FALSE(r.being_preempted || r.preempt_off);
      if (!qos) EXPECT_LT(r.priority_tier, job.priority_tier);
      if (qos) EXPECT_TRUE(s.preempt.rules[job.qos].preempts.count(r.qos));
    }
    EXPECT_TRUE(PlaceJob(Without(s, victims), job, &alloc));
    for (int64_t v : victims) {
      std::set<int64_t> less = victims;
      less.erase(v);
      EXPECT_FALSE(PlaceJob(Without(s, less), job, &alloc)) << "victim " << v << " not needed";
    }
    if (!victims.empty()) ++with_victims;
  }
  EXPECT_GT(with_victims, 50);
  EXPECT_GT(hopeless, 100);
}

}  // namespace
}  // namespace sluice::sched
