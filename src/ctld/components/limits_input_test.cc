// AddLimitsInput alone (no controller): the limit scopes of pending and running jobs, the
// usage they have accrued and what the running jobs hold for how much longer.
#include "ctld/components/limits_input.h"

#include <gtest/gtest.h>

#include <set>

namespace sluice::ctld {
namespace {

constexpr int64_t kT0 = 1'700'000'000;

class LimitsInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.accounts = {{"ml", "root", 1}, {"vision", "ml", 1}};
    config_.user_assocs = {{"alice", "vision", 1}};
    assocs_.Seed(config_);
    SacctmgrRequest limit;  // sacctmgr modify account ml set GrpTRES=cpu=16
    limit.set_verb("modify");
    limit.set_entity("account");
    limit.add_where("name=ml");
    limit.add_set("GrpTRES=cpu=16");
    AssocWrites writes;
    ASSERT_TRUE(assocs_.Execute(limit, AdminLevel::kAdministrator, &writes).ok());
  }
  JobInfo* Add(int64_t id, const std::string& user, JobState state, int cpus, int limit_min) {
    JobInfo j;
    j.set_job_id(id);
    j.set_user(user);
    j.mutable_spec()->set_account("vision");
    j.set_time_limit_min(limit_min);
    if (state == JOB_RUNNING) {
      j.set_start_time(kT0);
      NodeAlloc* a = j.add_alloc();
      a->set_node("node01");
      for (int c = 0; c < cpus; ++c) a->add_cpu_ids(c);
    }
    JobInfo* in = jobs_.Insert(std::move(j));
    jobs_.SetState(in, state);
    return in;
  }
  std::set<std::string> Labels(const sched::LimitsInput& in, int64_t job) {
    std::set<std::string> out;
    for (int s : in.job_scopes.at(job)) out.insert(in.scopes[s].label);
    return out;
  }
  Config config_;
  AssocDb assocs_;
  JobTable jobs_;
  FairShare fair_{&config_, &assocs_, [](const JobInfo&) { return std::string(); }};
};

TEST_F(LimitsInputTest, ScopesUpTheTreeAndWhatRunningJobsHold) {
  Add(1, "alice", JOB_RUNNING, 4, 10);
  Add(2, "alice", JOB_PENDING, 0, 5);
  Add(3, "alice", JOB_PENDING, 0, 5);  // pending but not in this pass: no scopes
  sched::JobRequest pending;
  pending.job_id = 2;
  sched::ClusterSnapshot snap;
  AddLimitsInput(jobs_, assocs_, fair_, {pending}, kT0 + 60, &snap);
  const sched::LimitsInput& in = snap.limits;
  // Scopes with a limit only: ml's GrpTRES (vision and root set none).
  const std::set<std::string> want = {"account ml"};
  EXPECT_EQ(Labels(in, 1), want);
  EXPECT_EQ(Labels(in, 2), want);
  EXPECT_EQ(in.job_scopes.count(3), 0u);
  ASSERT_EQ(in.scopes.size(), 1u);  // shared between the jobs
  EXPECT_EQ(in.scopes[0].grp_tres.cpu, 16);
  ASSERT_EQ(in.running.size(), 1u);
  EXPECT_EQ(in.running[0].job_id, 1);
  EXPECT_EQ(in.running[0].tres.cpu, 4);
  EXPECT_EQ(in.running[0].tres.node, 1);
  EXPECT_EQ(in.running[0].remaining_s, 540);  // 10 min from kT0, at kT0 + 60
}

}  // namespace
}  // namespace sluice::ctld
