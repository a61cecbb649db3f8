// LimitsTracker and the TRES strings; a randomised property test: over a sequence of
// backfill passes with jobs ending between them, no scope ever runs more jobs or TRES
// than its limits allow.
#include "sched/assoc_limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "sched/scheduler.h"

namespace sluice::sched {
namespace {

TEST(TresLimit, ParsesAndFormats) {
  auto t = ParseTresLimit("cpu=64,gres/gpu=8,node=2,mem=100G");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->cpu, 64);
  EXPECT_EQ(t->gpu, 8);
  EXPECT_EQ(t->node, 2);
  EXPECT_EQ(t->mem_mb, 102400);
  EXPECT_EQ(FormatTresLimit(*t), "cpu=64,mem=100G,node=2,gres/gpu=8");
  auto merged = MergeTresLimit(*t, "cpu=-1,gres/gpu=2");
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(FormatTresLimit(*merged), "mem=100G,node=2,gres/gpu=2");
  EXPECT_FALSE(ParseTresLimit("bogus=1").ok());
  EXPECT_FALSE(ParseTresLimit("cpu=x").ok());
  EXPECT_FALSE(ParseTresLimit("cpu").ok());
}

JobRequest Job(int64_t id, int cpus, int gpus = 0, int64_t time_s = 600) {
  JobRequest j;
  j.job_id = id;
  j.cpus_per_node = cpus;
  j.gpus_per_node = gpus;
  j.time_limit_s = time_s;
  return j;
}

TEST(LimitsTracker, ReasonsForEachLimit) {
  LimitsInput in;
  LimitScope user;
  user.max_jobs = 1;
  user.max_wall_s = 3600;
  LimitScope acct;
  acct.grp_tres.gpu = 2;
  LimitScope qos_user;
  qos_user.qos = true;
  qos_user.max_tres_per_user.gpu = 1;
  in.scopes = {user, acct, qos_user};
  in.job_scopes[1] = {0, 1};
  in.job_scopes[2] = {0, 1};
  in.job_scopes[3] = {1};
  in.job_scopes[4] = {1};
  in.job_scopes[5] = {2};
  in.job_scopes[6] = {0};
  LimitsTracker t(in);
  EXPECT_EQ(t.Check(Job(6, 1, 0, 7200)), "AssocMaxWallDurationPerJobLimit");
  EXPECT_EQ(t.Check(Job(6, 1, 0, 0)), "AssocMaxWallDurationPerJobLimit");  // unlimited
  EXPECT_EQ(t.Check(Job(1, 1)), "");
  t.Start(Job(1, 1));
  EXPECT_EQ(t.Check(Job(2, 1)), "AssocMaxJobsLimit");
  EXPECT_EQ(t.Check(Job(3, 1, 2)), "");
  t.Start(Job(3, 1, 2));
  EXPECT_EQ(t.Check(Job(4, 1, 1)), "AssocGrpGRES");
  EXPECT_EQ(t.Check(Job(5, 1, 2)), "QOSMaxGRESPerUser");
  EXPECT_EQ(t.Check(Job(99, 100, 100)), "");  // no scopes: no limits
}

TEST(LimitsTracker, GrpTresMinutesCountsUsageAndRunningJobs) {
  LimitsInput in;
  LimitScope s;
  s.grp_tres_mins.cpu = 100;
  s.used_cpu_min = 50;
  in.scopes = {s};
  in.job_scopes[1] = {0};
  in.job_scopes[2] = {0};
  in.running.push_back({1, Tres{2, 0, 1, 0}, 600});  // 2 cpus x 10 min = 20
  LimitsTracker t(in);
  EXPECT_EQ(t.Check(Job(2, 1, 0, 1800)), "");                         // +30 = 100
  EXPECT_EQ(t.Check(Job(2, 1, 0, 1860)), "AssocGrpCPUMinutesLimit");  // +31
}

TEST(LimitsTracker, BackfillHonoursLimitsAndSkipsLimitedJobs) {
  ClusterSnapshot snap;
  for (int i = 0; i < 2; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.cpus = 8;
    n.mem_mb = 1000;
    snap.nodes.push_back(n);
  }
  LimitScope s;
  s.max_jobs = 1;
  snap.limits.scopes = {s};
  snap.limits.job_scopes[1] = {0};
  snap.limits.job_scopes[2] = {0};
  auto fifo = MakeFifoScheduler();
  Plan plan = fifo->Schedule(snap, {Job(1, 1), Job(2, 1), Job(3, 1)}, 0);
  EXPECT_EQ(plan.decisions[0].outcome, Outcome::kStartNow);
  EXPECT_EQ(plan.decisions[1].reason, "AssocMaxJobsLimit");
  EXPECT_EQ(plan.decisions[2].outcome, Outcome::kStartNow);  // a limited job blocks nobody
}

// Property: random scopes/limits/jobs; after every pass the running set of each scope
// stays within max_jobs/grp_jobs/grp_tres (whatever the policy).
TEST(LimitsTracker, RandomPassesNeverExceedLimits) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 40; ++round) {
    ClusterSnapshot base;
    for (int i = 0; i < 4; ++i) {
      Node n;
      n.name = "n" + std::to_string(i);
      n.cpus = 8;
      n.mem_mb = 8000;
      for (int g = 0; g < 4; ++g) n.gpus.push_back({g, "a100"});
      base.nodes.push_back(n);
    }
    const int nscopes = 1 + rng() % 5;
    for (int s = 0; s < nscopes; ++s) {
      LimitScope sc;
      sc.qos = rng() % 2;
      if (rng() % 2) sc.max_jobs = rng() % 4;
      if (rng() % 2) sc.grp_jobs = rng() % 5;
      if (rng() % 2) sc.grp_tres.cpu = rng() % 16;
      if (rng() % 2) sc.grp_tres.gpu = rng() % 6;
      if (rng() % 3 == 0) sc.max_tres_per_user.gpu = rng() % 4;
      base.limits.scopes.push_back(sc);
    }
    std::vector<JobRequest> pending;
    for (int id = 1; id <= 30; ++id) {
      JobRequest j = Job(id, 1 + rng() % 4, rng() % 3);
      j.gpu_type = "";
      pending.push_back(j);
      std::vector<int> scopes;
      for (int s = 0; s < nscopes; ++s)
        if (rng() % 2) scopes.push_back(s);
      base.limits.job_scopes[id] = scopes;
    }
    SchedulerConfig cfg;
    cfg.policy = static_cast<SchedulerConfig::Policy>(rng() % 3);
    auto sched = MakeScheduler(cfg);
    std::map<int64_t, std::vector<NodeShare>> running;
    std::map<int64_t, JobRequest> by_id;
    for (const auto& j : pending) by_id[j.job_id] = j;
    for (int pass = 0; pass < 8; ++pass) {
      ClusterSnapshot snap = base;
      for (const auto& [id, alloc] : running) {
        ApplyAllocation(&snap, alloc, false);
        snap.running.push_back({id, 600, false, alloc});
        snap.limits.running.push_back({id, TresOf(by_id[id]), 600});
      }
      Plan plan = sched->Schedule(snap, pending, pass * 100);
      std::vector<JobRequest> still;
      for (size_t k = 0; k < plan.decisions.size(); ++k) {
        if (plan.decisions[k].outcome == Outcome::kStartNow)
          running[pending[k].job_id] = plan.decisions[k].alloc;
        else
          still.push_back(pending[k]);
      }
      pending = still;
      // Check every scope against the running set.
      for (int s = 0; s < nscopes; ++s) {
        const LimitScope& sc = base.limits.scopes[s];
        int64_t jobs = 0, cpu = 0, gpu = 0;
        for (const auto& [id, alloc] : running) {
          const auto& js = base.limits.job_scopes[id];
          if (std::find(js.begin(), js.end(), s) == js.end()) continue;
          ++jobs;
          cpu += TresOf(by_id[id]).cpu;
          gpu += TresOf(by_id[id]).gpu;
        }
        if (sc.max_jobs >= 0) ASSERT_LE(jobs, sc.max_jobs) << "round " << round;
        if (sc.grp_jobs >= 0) ASSERT_LE(jobs, sc.grp_jobs) << "round " << round;
        if (sc.grp_tres.cpu >= 0) ASSERT_LE(cpu, sc.grp_tres.cpu) << "round " << round;
        if (sc.grp_tres.gpu >= 0) ASSERT_LE(gpu, sc.grp_tres.gpu) << "round " << round;
        if (sc.max_tres_per_user.gpu >= 0) ASSERT_LE(gpu, sc.max_tres_per_user.gpu);
      }
      // Some running jobs end.
      for (auto it = running.begin(); it != running.end();)
        it = (rng() % 2) ? running.erase(it) : std::next(it);
    }
  }
}

}  // namespace
}  // namespace sluice::sched
