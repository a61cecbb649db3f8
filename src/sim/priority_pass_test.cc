// Multifactor priority in the simulator: association keys, usage accrual between events,
// the pending order (hand-computed), and that Simulate with it off keeps FCFS.
#include "sim/priority_pass.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "sim/policy.h"
#include "sim/simulator.h"

namespace sluice::sim {
namespace {

constexpr int64_t kEpoch = 5000;

sched::ClusterSnapshot OneNode(int cpus) {
  sched::ClusterSnapshot cluster;
  sched::Node node;
  node.name = "n1";
  node.cpus = cpus;
  cluster.nodes.push_back(node);
  return cluster;
}

SimJob Job(int64_t id, int64_t submit, int64_t run, const std::string& user) {
  SimJob job;
  job.id = std::to_string(id);
  job.submit_s = submit;
  job.run_s = run;
  job.request.job_id = id;
  job.request.submit_time = submit;
  job.request.time_limit_s = run;
  job.request.priority = 100 - id;  // FCFS
  job.cpus = 1;
  job.traits.user = user;
  return job;
}

TEST(PriorityPass, AssocKeyDefaultsToRoot) {
  SimJob job = Job(1, 0, 10, "alice");
  EXPECT_EQ(AssocKeyOf(job), (sched::UsageKey{"root", "alice"}));
  job.traits.account = "phys";
  EXPECT_EQ(AssocKeyOf(job), (sched::UsageKey{"phys", "alice"}));
}

TEST(PriorityPass, AccruesCpuSecondsBetweenEvents) {
  SimPriority config;
  config.enabled = true;
  PriorityPass pass(config, OneNode(4), kEpoch);
  std::vector<SimJob> jobs = {Job(1, 0, 100, "alice")};
  jobs[0].cpus = 4;
  pass.Accrue(0, jobs, {});               // sets the time
  pass.Accrue(30, jobs, {{0, 0, -1}});    // running: 4 CPUs x 30 s
  pass.Accrue(100, jobs, {{0, 0, 100}});  // ended at 100: 4 x 70 more
  EXPECT_DOUBLE_EQ(pass.ledger().Billing({"root", "alice"}), 400);
}

TEST(PriorityPass, OrdersByTierThenPriority) {
  SimPriority config;
  config.enabled = true;
  config.weights.age = 1000;
  config.weights.max_age_s = 1000;
  PriorityPass pass(config, OneNode(1), kEpoch);
  std::vector<SimJob> jobs = {Job(1, 0, 10, "a"), Job(2, 500, 10, "b"), Job(3, 900, 10, "c")};
  jobs[2].request.priority_tier = 1;
  std::vector<sched::JobRequest> pending = {jobs[0].request, jobs[1].request, jobs[2].request};
  std::vector<size_t> index = {0, 1, 2};
  pass.Order(1000, jobs, {}, {0, 500, 900}, &pending, &index);
  // c: tier 1 first (age 100); then a (age 1000) before b (age 500).
  EXPECT_EQ(index, (std::vector<size_t>{2, 0, 1}));
  EXPECT_EQ(pending[0].job_id, 3);
  EXPECT_EQ(pending[0].priority, 100);
  EXPECT_EQ(pending[1].priority, 1000);
  EXPECT_EQ(pending[2].priority, 500);
}

TEST(PriorityPass, SimulateUsesItOnlyWhenEnabled) {
  // One CPU; a runs 0-100 for alice. At 100, alice's b (submitted first) and bob's c wait.
  std::vector<SimJob> jobs = {Job(1, 0, 100, "alice"), Job(2, 10, 10, "alice"),
                              Job(3, 20, 10, "bob")};
  auto scheduler = MakePolicyScheduler(Policy::kFifo);
  ManualClock clock(kEpoch);
  auto fcfs = Simulate(OneNode(1), jobs, scheduler.get(), &clock);
  ASSERT_TRUE(fcfs.ok());
  EXPECT_EQ(fcfs->jobs[1].start_s, 100);
  EXPECT_EQ(fcfs->jobs[2].start_s, 110);
  SimPriority priority;
  priority.enabled = true;
  priority.weights.fairshare = 1000;
  ManualClock clock2(kEpoch);
  auto fair = Simulate(OneNode(1), jobs, scheduler.get(), &clock2, priority);
  ASSERT_TRUE(fair.ok());
  EXPECT_EQ(fair->jobs[2].start_s, 100);  // bob has no usage: fair-share 1.0 vs alice 0.5
  EXPECT_EQ(fair->jobs[1].start_s, 110);
}

}  // namespace
}  // namespace sluice::sim
