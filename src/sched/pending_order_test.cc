// The pre-scheduler pipeline: association tree with ledger usage, pending priorities
// (hand-computed) and the pending order.
#include "sched/pending_order.h"

#include <gtest/gtest.h>

namespace sluice::sched {
namespace {

UsageLedger LedgerWith(const UsageKey& key, int64_t cpus, int64_t seconds) {
  UsageLedger l;
  l.Accrue(1000, 0, {});
  UsageCharge c;
  c.key = key;
  c.start = 1000;
  c.end = 1000 + seconds;
  c.billing_per_s = static_cast<double>(cpus);
  c.cpus = cpus;
  l.Accrue(1000 + seconds, 0, {c});
  return l;
}

PendingJob Job(int64_t id, const std::string& account, const std::string& user) {
  PendingJob j;
  j.job_id = id;
  j.eligible_time = 0;
  j.assoc = {account, user};
  return j;
}

JobRequest Request(int64_t id, int64_t priority) {
  JobRequest r;
  r.job_id = id;
  r.priority = priority;
  return r;
}

TEST(AssociationTree, AddsImplicitUsersAndLedgerUsage) {
  UsageLedger ledger = LedgerWith({"physics", "bob"}, 2, 50);  // 100 CPU-seconds
  std::vector<Assoc> declared = {{"physics", "", "root", 10, 0}, {"physics", "alice", "", 3, 0}};
  auto tree = AssociationTree(
      declared, {{"physics", "alice"}, {"root", "carol"}, {"root", ""}, {"root", "carol"}}, ledger);
  ASSERT_EQ(tree.size(), 4u);
  EXPECT_EQ(tree[1].user, "alice");
  EXPECT_EQ(tree[1].shares, 3);  // declared, not duplicated
  EXPECT_DOUBLE_EQ(tree[1].usage, 0);
  EXPECT_EQ(tree[2].user, "bob");  // from the ledger, before the seen keys
  EXPECT_EQ(tree[2].shares, 1);
  EXPECT_DOUBLE_EQ(tree[2].usage, 100);
  EXPECT_EQ(tree[3].account, "root");
  EXPECT_EQ(tree[3].user, "carol");  // once; the empty user is skipped
}

TEST(PrioritizePending, HandComputedFactors) {
  PrioritySettings s;
  s.weights.age = 1000;
  s.weights.job_size = 100;
  s.weights.partition = 40;
  s.weights.qos = 60;
  s.weights.max_age_s = 1000;
  s.totals = {4, 16};
  s.max_partition_job_factor = 4;
  s.max_qos_priority = 30;
  PendingJob j = Job(7, "root", "u");
  j.eligible_time = 100;
  j.num_nodes = 2;
  j.num_cpus = 4;
  j.partition_job_factor = 1;
  j.qos_priority = 10;
  j.nice = 5;
  auto f = PrioritizePending(s, {}, {j}, 350);
  ASSERT_EQ(f.count(7), 1u);
  // age 250/1000 -> 250; size (2/4 + 4/16)/2 = .375 -> 38; partition 1/4 -> 10;
  // qos 10/30 -> 20; minus nice 5.
  EXPECT_EQ(f[7].w_age, 250);
  EXPECT_EQ(f[7].w_job_size, 38);
  EXPECT_EQ(f[7].w_partition, 10);
  EXPECT_EQ(f[7].w_qos, 20);
  EXPECT_EQ(f[7].priority, 250 + 38 + 10 + 20 - 5);
}

TEST(PrioritizePending, HeldJobsGetNoFactors) {
  PendingJob held = Job(2, "root", "u");
  held.held = true;
  auto f = PrioritizePending({}, {}, {Job(1, "root", "u"), held}, 0);
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.count(1), 1u);
  EXPECT_EQ(f[1].priority, 1);  // no weights: the floor
}

TEST(PrioritizePending, FairShareFavoursTheLightUser) {
  PrioritySettings s;
  s.weights.fairshare = 1000;
  UsageLedger ledger = LedgerWith({"root", "heavy"}, 4, 100);
  auto tree = AssociationTree({}, {{"root", "heavy"}, {"root", "light"}}, ledger);
  auto f = PrioritizePending(s, tree, {Job(1, "root", "heavy"), Job(2, "root", "light")}, 0);
  // light: usage 0 -> LF inf, rank 2 of 2 -> 1.0; heavy: rank 1 of 2 -> 0.5.
  EXPECT_EQ(f[2].w_fairshare, 1000);
  EXPECT_EQ(f[1].w_fairshare, 500);
}

TEST(PrioritizePending, ABrokenTreeGivesFairShareZero) {
  PrioritySettings s;
  s.weights.fairshare = 1000;
  std::vector<Assoc> tree = {{"orphan", "", "nowhere", 1, 0}, {"orphan", "u", "", 1, 0}};
  auto f = PrioritizePending(s, tree, {Job(1, "orphan", "u")}, 0);
  EXPECT_EQ(f[1].w_fairshare, 0);
  EXPECT_EQ(f[1].priority, 1);
}

TEST(PendingOrder, TierThenPriorityThenJobId) {
  std::vector<JobRequest> pending = {Request(5, 10), Request(3, 10), Request(4, 99), Request(1, 1),
                                     Request(2, 50)};
  std::vector<int> tiers = {0, 0, 0, 2, 1};
  EXPECT_EQ(PendingOrder(pending, tiers), (std::vector<size_t>{3, 4, 2, 1, 0}));
  // Missing tiers count as 0.
  EXPECT_EQ(PendingOrder(pending, {}), (std::vector<size_t>{2, 4, 1, 0, 3}));
  EXPECT_TRUE(PendingOrder({}, {}).empty());
}

}  // namespace
}  // namespace sluice::sched
