// Advance reservations in the scheduler: hand-computed cases for backfill and FIFO, and a
// randomised invariant: no job outside a reservation ever holds its nodes during its
// window (starts now and planned starts alike), and reservation jobs stay inside.
#include <gtest/gtest.h>

#include <algorithm>

#include "sched/random_cases.h"
#include "sched/reservations.h"
#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::NodeNames;
using Names = std::vector<std::string>;
using Policy = SchedulerConfig::Policy;
constexpr int64_t kNow = 1000;

SchedulerConfig Config(Policy policy) {
  SchedulerConfig config;
  config.policy = policy;
  config.bf_resolution_s = 1;
  config.bf_window_s = 86400;
  return config;
}

JobRequest Timed(JobRequest job, int64_t limit, std::string resv = "") {
  job.time_limit_s = limit;
  job.reservation = std::move(resv);
  return job;
}

ClusterSnapshot WithResv(int nodes, ReservationWindow r) {
  ClusterSnapshot s = MakeCluster(nodes);
  s.reservations.push_back(std::move(r));
  return s;
}

TEST(ReservationSchedTest, ActiveReservationBlocksOthersAndHostsItsJobs) {
  ClusterSnapshot s = WithResv(2, {"r1", kNow - 10, kNow + 500, {"node1"}, false});
  std::vector<JobRequest> q = {Timed(MakeJob(1, 2, 1), 100), Timed(MakeJob(2, 1, 8), 100),
                               Timed(MakeJob(3, 1, 1), 100, "r1"),
                               Timed(MakeJob(4, 2, 1), 100, "r1")};
  for (Policy p : {Policy::kEasy, Policy::kConservative}) {
    Plan plan = MakeScheduler(Config(p))->Schedule(s, q, kNow);
    ASSERT_EQ(plan.decisions.size(), 4u);
    // Two nodes needed, one reserved: waits until the reservation ends.
    EXPECT_EQ(plan.decisions[0].outcome, Outcome::kPending);
    EXPECT_EQ(plan.decisions[0].reason, "ReqNodeNotAvail, UnavailableNodes:node1");
    if (p == Policy::kConservative) EXPECT_EQ(plan.decisions[0].planned_start, kNow + 500);
    EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);
    EXPECT_EQ(NodeNames(plan.decisions[1].alloc), Names{"node2"});
    EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);
    EXPECT_EQ(NodeNames(plan.decisions[2].alloc), Names{"node1"});
    // Needs two nodes, the reservation has one: never starts inside it.
    EXPECT_EQ(plan.decisions[3].outcome, Outcome::kPending);
    EXPECT_EQ(plan.decisions[3].planned_start, 0);
  }
}

TEST(ReservationSchedTest, FutureReservationLimitsJobsThatWouldOverlap) {
  ClusterSnapshot s = WithResv(1, {"m", kNow + 100, kNow + 200, {"node1"}, true});
  std::vector<JobRequest> q = {Timed(MakeJob(1), 300), Timed(MakeJob(2), 50),
                               Timed(MakeJob(3), 50, "m")};
  Plan plan = MakeScheduler(Config(Policy::kConservative))->Schedule(s, q, kNow);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[0].reason, kReasonMaint);
  EXPECT_EQ(plan.decisions[0].planned_start, kNow + 200);
  EXPECT_EQ(plan.decisions[1].outcome, Outcome::kStartNow);  // ends before the window
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[2].reason, kReasonReservation);
  EXPECT_EQ(plan.decisions[2].planned_start, kNow + 100);
}

TEST(ReservationSchedTest, UnknownOrEndedReservationNeverStarts) {
  ClusterSnapshot s = WithResv(1, {"old", kNow - 100, kNow, {"node1"}, false});
  Plan plan = MakeScheduler(Config(Policy::kEasy))
                  ->Schedule(s,
                             {Timed(MakeJob(1), 10, "old"), Timed(MakeJob(2), 10, "nope"),
                              Timed(MakeJob(3), 10)},
                             kNow);
  EXPECT_EQ(plan.decisions[0].reason, kReasonResvDeleted);
  EXPECT_EQ(plan.decisions[1].reason, kReasonResvDeleted);
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);  // the ended one holds nothing
}

TEST(ReservationSchedTest, FifoRespectsReservations) {
  ClusterSnapshot s = WithResv(2, {"r", kNow, kNow + 100, {"node2"}, false});
  auto fifo = MakeScheduler(Config(Policy::kFifo));
  Plan plan =
      fifo->Schedule(s, {Timed(MakeJob(1, 1, 1), 10), Timed(MakeJob(2, 1, 1), 10, "r")}, kNow);
  EXPECT_EQ(NodeNames(plan.decisions[0].alloc), Names{"node1"});
  EXPECT_EQ(NodeNames(plan.decisions[1].alloc), Names{"node2"});
  plan = fifo->Schedule(s, {Timed(MakeJob(1, 2, 1), 10)}, kNow);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kPending);
  EXPECT_EQ(plan.decisions[0].reason, "ReqNodeNotAvail, UnavailableNodes:node2");
  ClusterSnapshot later = WithResv(1, {"r", kNow + 10, kNow + 100, {"node1"}, false});
  plan = fifo->Schedule(later, {Timed(MakeJob(1), 10, "r")}, kNow);
  EXPECT_EQ(plan.decisions[0].reason, kReasonReservation);
}

// Randomised: whatever the cluster, queue and reservations, no job outside a reservation
// holds (now or planned) a reserved node during its window, and no reservation job leaves
// its reservation's nodes or starts outside its window.
TEST(ReservationSchedTest, RandomisedNoJobIntrudesOnAReservation) {
  for (Policy policy : {Policy::kEasy, Policy::kConservative, Policy::kFifo}) {
    for (uint32_t seed = 1; seed <= 300; ++seed) {
      testing::Rng rng(seed);
      ClusterSnapshot s = testing::RandomSnapshot(rng, 6, kNow);
      const int count = rng.Int(1, 3);
      for (int r = 0; r < count; ++r) {
        ReservationWindow w;
        w.name = "r" + std::to_string(r);
        w.start = kNow + rng.Int(-50, 80);
        w.end = w.start + rng.Int(1, 100);
        for (const Node& n : s.nodes) {
          bool taken = false;
          for (const ReservationWindow& o : s.reservations)
            taken = taken || std::count(o.nodes.begin(), o.nodes.end(), n.name);
          if (!taken && rng.Chance(40)) w.nodes.push_back(n.name);
        }
        s.reservations.push_back(w);
      }
      std::vector<JobRequest> q;
      const int jobs = rng.Int(1, 12);
      for (int j = 0; j < jobs; ++j) {
        JobRequest job = testing::RandomJob(rng, s);
        job.job_id = 100 + j;
        job.time_limit_s = rng.Chance(10) ? 0 : rng.Int(1, 120);
        if (rng.Chance(35)) job.reservation = "r" + std::to_string(rng.Int(0, count));
        q.push_back(job);
      }
      SchedulerConfig config = Config(policy);
      Plan plan = MakeScheduler(config)->Schedule(s, q, kNow);
      ASSERT_EQ(plan.decisions.size(), q.size());
      for (size_t i = 0; i < q.size(); ++i) {
        const Decision& d = plan.decisions[i];
        const bool starts = d.outcome == Outcome::kStartNow;
        if (!starts && d.planned_start == 0) continue;
        const int64_t start = starts ? kNow : d.planned_start;
        const int64_t end = q[i].time_limit_s > 0 ? start + q[i].time_limit_s : kForever;
        const std::vector<NodeShare>& alloc = starts ? d.alloc : d.planned_alloc;
        for (const ReservationWindow& w : s.reservations) {
          const bool mine = q[i].reservation == w.name;
          if (mine) {
            EXPECT_GE(start, w.start) << "seed " << seed;
            EXPECT_LT(start, w.end) << "seed " << seed;
            for (const NodeShare& a : alloc)
              EXPECT_TRUE(std::count(w.nodes.begin(), w.nodes.end(), a.node))
                  << "seed " << seed << " job " << q[i].job_id << " left " << w.name;
            continue;
          }
          if (start >= w.end || end <= std::max(w.start, kNow)) continue;
          for (const NodeShare& a : alloc)
            EXPECT_FALSE(std::count(w.nodes.begin(), w.nodes.end(), a.node))
                << "seed " << seed << " policy " << static_cast<int>(policy) << " job "
                << q[i].job_id << " on " << a.node << " in " << w.name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice::sched
