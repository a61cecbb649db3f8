// Backfill candidate orders (SJBF, WFP3, UNICEP, F1, SGTF), planning with predicted run
// times, and the starvation guard: hand-computed cases plus a randomised property (the
// head of the queue and everything before it are decided as in plain EASY).
#include "sched/backfill_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sched/random_cases.h"
#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::Timed;
constexpr int64_t kNow = 1000;

SchedulerConfig Easy(BackfillOrder order, double starvation = 0) {
  SchedulerConfig config;
  config.policy = SchedulerConfig::Policy::kEasy;
  config.bf_resolution_s = 1;
  config.bf_window_s = 86400;
  config.bf_order.order = order;
  config.bf_order.starvation_factor = starvation;
  return config;
}

JobRequest Submitted(JobRequest job, int64_t submit) {
  job.submit_time = submit;
  return job;
}

JobRequest Predicted(JobRequest job, int64_t predicted) {
  job.predicted_runtime_s = predicted;
  return job;
}

// node1 busy until kNow + 100; A (head) needs both nodes. B and C each want all of node2
// and both end before A's reservation, but only one can have node2.
std::vector<JobRequest> TwoCandidates() {
  return {Timed(MakeJob(10, 2, 8), 50), Timed(MakeJob(11, 1, 8), 90), Timed(MakeJob(12, 1, 8), 40)};
}

TEST(BackfillOrderTest, PriorityOrderBackfillsTheFirstCandidate) {
  Plan plan = MakeScheduler(Easy(BackfillOrder::kPriority))
                  ->Schedule(testing::BusyFirstNode(kNow + 100), TwoCandidates(), kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kPending);
}

TEST(BackfillOrderTest, SjbfBackfillsTheShorterCandidateHeadKeepsItsReservation) {
  Plan plan = MakeScheduler(Easy(BackfillOrder::kSjbf))
                  ->Schedule(testing::BusyFirstNode(kNow + 100), TwoCandidates(), kNow);
  ASSERT_EQ(plan.decisions.size(), 3u);
  EXPECT_EQ(plan.decisions[0].job_id, 10);  // decisions stay in request order
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(plan.decisions[1].job_id, 11);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[2].job_id, 12);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);
}

TEST(BackfillOrderTest, SjbfUsesPredictionsNotLimits) {
  std::vector<JobRequest> queue = TwoCandidates();
  queue[1] = Predicted(queue[1], 20);  // B: limit 90, predicted 20 < C's 40
  Plan plan = MakeScheduler(Easy(BackfillOrder::kSjbf))
                  ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kPending);
}

TEST(BackfillOrderTest, PredictionLetsAJobBackfillThatItsLimitWouldNot) {
  // B's limit (500 s) reaches past A's reservation at kNow + 100; its prediction does not.
  std::vector<JobRequest> queue = {Timed(MakeJob(10, 2, 8), 50), Timed(MakeJob(11, 1, 8), 500)};
  Plan by_limit = MakeScheduler(Easy(BackfillOrder::kPriority))
                      ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(by_limit.decisions[1].outcome, Outcome::kPending);
  queue[1] = Predicted(queue[1], 60);
  Plan by_prediction = MakeScheduler(Easy(BackfillOrder::kPriority))
                           ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(by_prediction.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(by_prediction.decisions[0].planned_start, kNow + 100);
}

TEST(BackfillOrderTest, RunningJobsReleaseAtTheirPlannedEnd) {
  ClusterSnapshot snapshot = testing::BusyFirstNode(kNow + 1000);  // limit ends at +1000
  snapshot.running[0].planned_end = kNow + 200;                    // predicted end
  std::vector<JobRequest> queue = {Timed(MakeJob(10, 2, 8), 50)};
  Plan plan = MakeScheduler(Easy(BackfillOrder::kPriority))->Schedule(snapshot, queue, kNow);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 200);
}

TEST(BackfillOrderTest, StarvingCandidateIsPromoted) {
  // B (90 s) has waited 1000 s: bounded slowdown so far > 5, so with factor 5 it is tried
  // before the shorter C although SJBF would prefer C.
  std::vector<JobRequest> queue = TwoCandidates();
  queue[1] = Submitted(queue[1], kNow - 1000);
  queue[2] = Submitted(queue[2], kNow);
  Plan unguarded = MakeScheduler(Easy(BackfillOrder::kSjbf))
                       ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(unguarded.decisions[2].outcome, Outcome::kStartNow);
  Plan guarded = MakeScheduler(Easy(BackfillOrder::kSjbf, 5))
                     ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(guarded.decisions[1].outcome, Outcome::kStartNow);
  EXPECT_EQ(guarded.decisions[2].outcome, Outcome::kPending);
}

TEST(BackfillOrderTest, StarvingHeadIsProtectedFromPredictedBackfills) {
  // A (head) has waited 10000 s, over 5 x its 50 s. B's prediction (60 s) would fit before
  // A's reservation at kNow + 100, its limit (500 s) would not: with the guard on, B is
  // planned with its limit and waits.
  std::vector<JobRequest> queue = {Submitted(Timed(MakeJob(10, 2, 8), 50), kNow - 10000),
                                   Predicted(Submitted(Timed(MakeJob(11, 1, 8), 500), kNow), 60)};
  Plan unguarded = MakeScheduler(Easy(BackfillOrder::kSjbf))
                       ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(unguarded.decisions[1].outcome, Outcome::kStartNow);
  Plan guarded = MakeScheduler(Easy(BackfillOrder::kSjbf, 5))
                     ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(guarded.decisions[0].planned_start, kNow + 100);
  EXPECT_EQ(guarded.decisions[1].outcome, Outcome::kPending);
  // Not yet starving (waited 200 s < 5 x 50 s): predictions are used.
  queue[0].submit_time = kNow - 200;
  Plan young = MakeScheduler(Easy(BackfillOrder::kSjbf, 5))
                   ->Schedule(testing::BusyFirstNode(kNow + 100), queue, kNow);
  EXPECT_EQ(young.decisions[1].outcome, Outcome::kStartNow);
}

std::vector<int64_t> Sorted(const std::vector<JobRequest>& jobs, BackfillOrder order, int64_t now,
                            int64_t origin = 0) {
  std::vector<size_t> pos;
  for (size_t i = 0; i < jobs.size(); ++i) pos.push_back(i);
  BackfillOrderConfig config;
  config.order = order;
  config.origin = origin;
  SortBackfillCandidates(jobs, config, now, &pos);
  std::vector<int64_t> ids;
  for (size_t p : pos) ids.push_back(jobs[p].job_id);
  return ids;
}

TEST(BackfillOrderTest, Wfp3PrefersLongWaitsRelativeToLengthTimesSize) {
  // (w/d)^3 x n: job 1: (100/100)^3 x 1 = 1; job 2: (100/50)^3 x 1 = 8; job 3: 1^3 x 4 = 4.
  std::vector<JobRequest> jobs = {Submitted(Timed(MakeJob(1, 1, 1), 100), 0),
                                  Submitted(Timed(MakeJob(2, 1, 1), 50), 0),
                                  Submitted(Timed(MakeJob(3, 1, 4), 100), 0)};
  EXPECT_EQ(Sorted(jobs, BackfillOrder::kWfp3, 100), (std::vector<int64_t>{2, 3, 1}));
}

TEST(BackfillOrderTest, UnicepPrefersLongWaitsRelativeToLengthTimesLogSize) {
  // w / (log2(n) d): job 1 (n=1 counts as 2): 100/(1 x 100) = 1; job 2: 100/(3 x 10) = 3.3;
  // job 3: 40/(1 x 10) = 4.
  std::vector<JobRequest> jobs = {Submitted(Timed(MakeJob(1, 1, 1), 100), 0),
                                  Submitted(Timed(MakeJob(2, 1, 8), 10), 0),
                                  Submitted(Timed(MakeJob(3, 1, 2), 10), 60)};
  EXPECT_EQ(Sorted(jobs, BackfillOrder::kUnicep, 100), (std::vector<int64_t>{3, 2, 1}));
}

TEST(BackfillOrderTest, F1ScoresLogTimeTimesSizePlusSubmitTime) {
  // log10(d) n + 870 log10(s): job 1: 2 x 1 + 870 x 1 = 872; job 2: 1 x 8 + 870 = 878;
  // job 3: 1 x 1 + 870 x 2 = 1741; job 4 as job 1 but submitted at origin + 10.
  std::vector<JobRequest> jobs = {
      Submitted(Timed(MakeJob(1, 1, 1), 100), 5010), Submitted(Timed(MakeJob(2, 1, 8), 10), 5010),
      Submitted(Timed(MakeJob(3, 1, 1), 10), 5100), Submitted(Timed(MakeJob(4, 1, 1), 100), 5010)};
  EXPECT_EQ(Sorted(jobs, BackfillOrder::kF1, 6000, 5000), (std::vector<int64_t>{1, 4, 2, 3}));
}

TEST(BackfillOrderTest, SgtfSmallestGpuTimeFirstWithAging) {
  // GPU-time / (1 + w / 3600): job 1: 4 GPUs x 100 = 400; job 2: 1 x 300 = 300; job 3:
  // 8 x 100 = 800 but waited 3 h: 800 / 4 = 200.
  std::vector<JobRequest> jobs = {Submitted(Timed(MakeJob(1, 1, 1, 0, 4), 100), 10800),
                                  Submitted(Timed(MakeJob(2, 1, 1, 0, 1), 300), 10800),
                                  Submitted(Timed(MakeJob(3, 2, 1, 0, 4), 100), 0)};
  EXPECT_EQ(Sorted(jobs, BackfillOrder::kSgtf, 10800), (std::vector<int64_t>{3, 2, 1}));
}

TEST(BackfillOrderTest, NamesRoundTrip) {
  for (BackfillOrder o : {BackfillOrder::kPriority, BackfillOrder::kSjbf, BackfillOrder::kWfp3,
                          BackfillOrder::kUnicep, BackfillOrder::kF1, BackfillOrder::kSgtf}) {
    BackfillOrder parsed;
    ASSERT_TRUE(ParseBackfillOrder(BackfillOrderName(o), &parsed));
    EXPECT_EQ(parsed, o);
  }
  BackfillOrder parsed;
  EXPECT_FALSE(ParseBackfillOrder("fastest", &parsed));
}

// Property: whatever the backfill order, every job up to and including the head (the first
// that waits for resources) is decided exactly as with the priority order, and a job that
// starts now never starts on resources another start of the same plan holds.
TEST(BackfillOrderTest, RandomisedHeadIsDecidedAsInPriorityOrder) {
  testing::Rng rng(2020);
  const int64_t now = 10;
  for (int round = 0; round < 400; ++round) {
    ClusterSnapshot snapshot = testing::RandomSnapshot(rng, 5, now);
    std::vector<JobRequest> queue;
    const int n = rng.Int(1, 10);
    for (int i = 0; i < n; ++i) {
      JobRequest job = testing::RandomJob(rng, snapshot);
      job.job_id = 100 + i;
      job.submit_time = rng.Int(0, 10);
      job.time_limit_s = rng.Chance(20) ? 0 : rng.Int(1, 60);
      if (job.time_limit_s > 0 && rng.Chance(50))
        job.predicted_runtime_s = rng.Int(1, static_cast<int>(job.time_limit_s));
      queue.push_back(job);
    }
    Plan base = MakeScheduler(Easy(BackfillOrder::kPriority))->Schedule(snapshot, queue, now);
    for (BackfillOrder order : {BackfillOrder::kSjbf, BackfillOrder::kWfp3, BackfillOrder::kUnicep,
                                BackfillOrder::kF1, BackfillOrder::kSgtf}) {
      Plan plan =
          MakeScheduler(Easy(order, rng.Chance(50) ? 2 : 0))->Schedule(snapshot, queue, now);
      ASSERT_EQ(plan.decisions.size(), queue.size());
      for (size_t i = 0; i < queue.size(); ++i) {
        ASSERT_EQ(plan.decisions[i].job_id, queue[i].job_id);
        const Decision& b = base.decisions[i];
        ASSERT_EQ(plan.decisions[i].outcome, b.outcome) << "round " << round << " job " << i;
        ASSERT_EQ(plan.decisions[i].planned_start, b.planned_start);
        ASSERT_EQ(plan.decisions[i].alloc, b.alloc);
        if (b.outcome == Outcome::kPending && (b.planned_start > 0 || b.reason == "Resources"))
          break;  // the head: later jobs may differ
      }
      ClusterSnapshot applied = snapshot;
      for (const Decision& d : plan.decisions) {
        if (d.outcome != Outcome::kStartNow) continue;
        for (const NodeShare& share : d.alloc) {
          for (const Node& node : applied.nodes) {
            if (node.name != share.node) continue;
            for (int c : share.cpu_ids)
              ASSERT_FALSE(c < static_cast<int>(node.cpu_used.size()) && node.cpu_used[c]);
          }
        }
        ApplyAllocation(&applied, d.alloc, false);
      }
    }
  }
}

// The queue order: by tier, then priority without its age, then the order's key.
TEST(QueueOrder, KeyRanksWithinTierAndPriorityWithoutAge) {
  auto job = [](int64_t id, int tier, int64_t priority, int64_t age, int64_t limit) {
    JobRequest j = Submitted(MakeJob(id), kNow - 100);
    j.priority_tier = tier;
    j.priority = priority;
    j.priority_age = age;
    j.time_limit_s = limit;
    return j;
  };
  const std::vector<JobRequest> pending = {
      job(1, 0, 500, 490, 10000),  // base 10, long
      job(2, 0, 60, 10, 5000),     // base 50: ranks before every base-10 job
      job(3, 0, 20, 10, 100),      // base 10, short: first of its class under UNICEP
      job(4, 1, 1, 1, 90000),      // a higher tier: first whatever its key
      job(5, 0, 30, 20, 100),      // base 10, as short as 3: the lower id first
  };
  BackfillOrderConfig config;
  EXPECT_EQ(QueueOrder(pending, config, kNow), (std::vector<size_t>{0, 1, 2, 3, 4}));
  config.order = BackfillOrder::kUnicep;
  EXPECT_EQ(QueueOrder(pending, config, kNow), (std::vector<size_t>{3, 1, 2, 4, 0}));
  config.order = BackfillOrder::kSjbf;
  EXPECT_EQ(QueueOrder(pending, config, kNow), (std::vector<size_t>{3, 1, 2, 4, 0}));
}

// UNICEP and WFP3 age: a long job that has waited long enough passes a fresh short one.
TEST(QueueOrder, WaitingRaisesALongJob) {
  JobRequest fresh_short = Submitted(MakeJob(1), kNow - 100);
  fresh_short.time_limit_s = 60;  // w / d = 1.7
  for (BackfillOrder order : {BackfillOrder::kUnicep, BackfillOrder::kWfp3}) {
    BackfillOrderConfig config;
    config.order = order;
    JobRequest long_job = Submitted(MakeJob(2), kNow - 5000);
    long_job.time_limit_s = 10000;  // w / d = 0.5: after the short one
    EXPECT_EQ(QueueOrder({fresh_short, long_job}, config, kNow), (std::vector<size_t>{0, 1}))
        << BackfillOrderName(order);
    long_job.submit_time = kNow - 50000;  // w / d = 5: before it
    EXPECT_EQ(QueueOrder({fresh_short, long_job}, config, kNow), (std::vector<size_t>{1, 0}))
        << BackfillOrderName(order);
  }
}

// SJBF does not age: the starvation guard puts a job that waited K x its run time first.
TEST(QueueOrder, StarvingJobsFirstInPendingOrder) {
  JobRequest waited = Submitted(MakeJob(1), kNow - 3000);
  waited.time_limit_s = 1000;  // waited 3 x
  JobRequest fresh = Submitted(MakeJob(2), kNow - 10);
  fresh.time_limit_s = 10;
  BackfillOrderConfig config;
  config.order = BackfillOrder::kSjbf;
  EXPECT_EQ(QueueOrder({waited, fresh}, config, kNow), (std::vector<size_t>{1, 0}));
  config.starvation_factor = 3;
  EXPECT_EQ(QueueOrder({waited, fresh}, config, kNow), (std::vector<size_t>{0, 1}));
}

// Random queues: the order is a permutation, deterministic, and never puts a job before
// one of a higher tier or a higher priority without age.
TEST(QueueOrder, PermutationThatKeepsTiersAndPriorityClasses) {
  std::mt19937 rng(20261207);
  for (int round = 0; round < 200; ++round) {
    std::vector<JobRequest> pending;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      JobRequest j = Submitted(MakeJob(i + 1, 1 + static_cast<int>(rng() % 4)),
                               kNow - static_cast<int64_t>(rng() % 100000));
      j.time_limit_s = rng() % 5 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 86400);
      j.priority_tier = static_cast<int>(rng() % 2);
      j.priority_age = static_cast<int64_t>(rng() % 1000);
      j.priority = j.priority_age + static_cast<int64_t>(rng() % 3) * 1000;
      pending.push_back(j);
    }
    for (BackfillOrder order : {BackfillOrder::kSjbf, BackfillOrder::kWfp3, BackfillOrder::kUnicep,
                                BackfillOrder::kF1, BackfillOrder::kSgtf}) {
      BackfillOrderConfig config;
      config.order = order;
      config.starvation_factor = round % 2 ? 5 : 0;
      std::vector<size_t> got = QueueOrder(pending, config, kNow);
      EXPECT_EQ(got, QueueOrder(pending, config, kNow));
      std::vector<size_t> sorted = got;
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
      for (size_t k = 1; k < got.size(); ++k) {
        const JobRequest& a = pending[got[k - 1]];
        const JobRequest& b = pending[got[k]];
        ASSERT_GE(a.priority_tier, b.priority_tier);
        if (a.priority_tier == b.priority_tier)
          ASSERT_GE(a.priority - a.priority_age, b.priority - b.priority_age);
      }
    }
  }
}

}  // namespace
}  // namespace sluice::sched
