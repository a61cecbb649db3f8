// FairShare alone (no controller): the association a job charges, usage charged by what
// jobs hold for how long, and multifactor priorities that favour the account that used
// less, set on the jobs and their scheduler requests.
#include "ctld/components/fair_share.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

constexpr int64_t kT0 = 1'700'000'000;

class FairShareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PartitionConfig p;
    p.name = "gpu";
    p.is_default = true;
    config_.partitions.push_back(p);
    NodeConfig n;
    n.name = "node01";
    n.cpus = 8;
    config_.nodes.push_back(n);
    config_.priority.multifactor = true;
    config_.priority.weight_fairshare = 10000;
    config_.priority.decay_half_life_s = 0;  // no decay: usage is exactly what ran
    config_.accounts = {{"a", "root", 1}, {"b", "root", 1}};
    config_.user_assocs = {{"alice", "a", 1}, {"bob", "b", 1}};
    assocs_.Seed(config_);
  }
  JobInfo* Add(int64_t id, const std::string& user, const std::string& account, JobState state,
               int cpus = 0) {
    JobInfo j;
    j.set_job_id(id);
    j.set_user(user);
    j.mutable_spec()->set_account(account);
    j.mutable_spec()->set_partition("gpu");
    j.set_submit_time(kT0);
    j.set_num_nodes(1);
    j.set_num_cpus(1);
    j.set_priority(1);
    if (cpus > 0) {
      j.set_start_time(kT0);
      NodeAlloc* a = j.add_alloc();
      a->set_node("node01");
      for (int c = 0; c < cpus; ++c) a->add_cpu_ids(c);
    }
    JobInfo* in = jobs_.Insert(std::move(j));
    jobs_.SetState(in, state);
    sched::JobRequest r;
    r.job_id = id;
    jobs_.SetRequest(id, r);
    return in;
  }
  Config config_;
  AssocDb assocs_;
  JobTable jobs_;
  FairShare fair_{&config_, &assocs_, [](const JobInfo&) { return std::string(); }};
};

TEST_F(FairShareTest, AJobChargesItsAccountElseItsUsersDefaultElseRoot) {
  EXPECT_EQ(fair_.AssocOf(*Add(1, "alice", "a", JOB_PENDING)), (sched::UsageKey{"a", "alice"}));
  EXPECT_EQ(fair_.AssocOf(*Add(2, "alice", "", JOB_PENDING)), (sched::UsageKey{"a", "alice"}));
  EXPECT_EQ(fair_.AssocOf(*Add(3, "carol", "nope", JOB_PENDING)),
            (sched::UsageKey{"root", "carol"}));
}

TEST_F(FairShareTest, UsageIsWhatRanAndTheLighterAccountGoesFirst) {
  Add(1, "alice", "a", JOB_RUNNING, /*cpus=*/4);
  fair_.Accrue(jobs_, kT0);
  const std::vector<sched::UsageCharge> charges = fair_.Accrue(jobs_, kT0 + 100);
  ASSERT_EQ(charges.size(), 1u);
  EXPECT_EQ(charges[0].key, (sched::UsageKey{"a", "alice"}));
  EXPECT_DOUBLE_EQ(fair_.ledger().Billing({"a", "alice"}), 400.0);  // 4 CPUs x 100 s
  EXPECT_DOUBLE_EQ(fair_.ledger().Billing({"b", "bob"}), 0.0);
  JobInfo* heavy = Add(2, "alice", "a", JOB_PENDING);
  JobInfo* light = Add(3, "bob", "b", JOB_PENDING);
  fair_.Prioritize(&jobs_, kT0 + 100);
  EXPECT_GT(light->priority(), heavy->priority());
  EXPECT_EQ(jobs_.Request(3)->priority, light->priority());
  GetPrioritiesReply sprio = fair_.Priorities({}, jobs_);
  ASSERT_EQ(sprio.jobs_size(), 2);
  EXPECT_GT(sprio.jobs(1).fairshare_factor(), sprio.jobs(0).fairshare_factor());
  auto shares = fair_.Shares(jobs_);
  ASSERT_TRUE(shares.ok()) << shares.status().message();
  EXPECT_GT(shares->rows_size(), 0);
}

}  // namespace
}  // namespace sluice::ctld
