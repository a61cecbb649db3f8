// Explain: one scheduler scenario per reason class; the pending reasons and planned starts
// come from a real pass of the EASY scheduler, as they do in the controller.
#include "sched/explain.h"

#include <gtest/gtest.h>

#include "sched/placement.h"
#include "sched/reservations.h"
#include "sched/scheduler.h"
#include "sched/test_util.h"

namespace sluice::sched {
namespace {

using testing::MakeJob;
using testing::MakeNode;
using testing::Timed;

constexpr int64_t kNow = 1000;

std::string At(int64_t t) { return "T" + std::to_string(t); }

// Two nodes with 64 CPUs and 8 h100 GPUs each, in partition gpu.
ClusterSnapshot GpuCluster() {
  ClusterSnapshot s;
  s.nodes.push_back(MakeNode("gpu1", 64, 512000, 8, "h100"));
  s.nodes.push_back(MakeNode("gpu2", 64, 512000, 8, "h100"));
  return s;
}

// Running job `id` holds `gpus` GPUs (and as many CPUs) of node `n` until `end`.
void Hold(ClusterSnapshot* s, int n, int64_t id, int gpus, int64_t end) {
  Node& node = s->nodes[n];
  node.cpu_used.resize(node.cpus, false);
  RunningJob r{id, end, false, {{node.name, {}, 0, {}, 1}}};
  for (int g = 0; g < gpus; ++g) {
    node.gpus[g].used = true;
    node.cpu_used[g] = true;
    r.alloc[0].cpu_ids.push_back(g);
    r.alloc[0].gpu_ids.push_back(g);
  }
  ++node.running_jobs;
  s->running.push_back(r);
}

JobRequest GpuJob(int64_t id, int nodes, int gpus, int64_t priority = 100) {
  JobRequest j = Timed(MakeJob(id, nodes, gpus, 0, gpus), 3600);
  j.priority = priority;
  j.allowed_nodes = {"gpu1", "gpu2"};
  return j;
}

// Runs an EASY pass over `pending` and returns the input Explain gets for job `id`.
ExplainInput FromPass(const ClusterSnapshot& s, const std::vector<JobRequest>& pending,
                      int64_t id) {
  Plan plan = MakeScheduler({})->Schedule(s, pending, kNow);
  ExplainInput in;
  in.partition = "gpu";
  for (size_t i = 0; i < pending.size(); ++i) {
    const Decision& d = plan.decisions[i];
    if (pending[i].job_id != id) {
      if (d.outcome != Outcome::kStartNow && in.job.job_id == 0)
        in.ahead.push_back({pending[i].job_id, pending[i].priority});
      continue;
    }
    in.job = pending[i];
    in.reason = d.reason;
    in.planned_start = d.planned_start;
    for (const NodeShare& n : d.planned_alloc) in.planned_nodes.push_back(n.node);
  }
  in.ahead_count = static_cast<int64_t>(in.ahead.size());
  return in;
}

TEST(Explain, ResourcesNamesTheIdleGpusAndTheJobWhoseEndStartsIt) {
  ClusterSnapshot s = GpuCluster();
  Hold(&s, 0, 812, 8, kNow + 3600);
  Hold(&s, 1, 811, 4, kNow + 1800);
  ExplainInput in = FromPass(s, {GpuJob(900, 2, 8)}, 900);
  ASSERT_EQ(in.reason, "Resources");
  ASSERT_EQ(in.planned_start, kNow + 3600 + 20);  // rounded up to the plan's resolution (60 s)
  EXPECT_EQ(Explain(s, in, kNow, At),
            "needs 2 nodes with 8 free GPUs each (16 GPUs); 4 GPUs are idle now and 0 "
            "nodes have room for it; planned start T4620 (in 1 h 0 min) when job 812 ends");
  in.job.gpu_type = "h100";
  in.planned_start = 0;
  EXPECT_EQ(Explain(s, in, kNow, At),
            "needs 2 nodes with 8 free h100 GPUs each (16 GPUs); 4 GPUs are idle now and 0 "
            "nodes have room for it; no start planned within the backfill window");
}

// PrivateData=jobs: a reader who may not see job 812 is told of "a running job".
TEST(Explain, OthersJobsAreNotNamedToAReaderWhoMayNotSeeThem) {
  ClusterSnapshot s = GpuCluster();
  Hold(&s, 0, 812, 8, kNow + 3600);
  Hold(&s, 1, 811, 4, kNow + 1800);
  ExplainInput in = FromPass(s, {GpuJob(900, 2, 8)}, 900);
  in.names_job = [](int64_t id) { return id != 812; };
  const std::string words = Explain(s, in, kNow, At);
  EXPECT_EQ(words.find("812"), std::string::npos) << words;
  EXPECT_NE(words.find("(in 1 h 0 min) when a running job ends"), std::string::npos) << words;
  in.names_job = [](int64_t id) { return id == 812; };
  EXPECT_NE(Explain(s, in, kNow, At).find("when job 812 ends"), std::string::npos);
}

TEST(Explain, ResourcesWithoutTimeLimitsPlansNoStartAndSaysWhy) {
  ClusterSnapshot s = GpuCluster();
  Hold(&s, 0, 812, 8, 0);  // no time limit
  ExplainInput in = FromPass(s, {GpuJob(900, 2, 8)}, 900);
  ASSERT_EQ(in.reason, "Resources");
  EXPECT_EQ(Explain(s, in, kNow, At),
            "needs 2 nodes with 8 free GPUs each (16 GPUs); 8 GPUs are idle now and 1 "
            "node has room for it; no start planned: running jobs without a time limit hold "
            "nodes it needs");
}

TEST(Explain, PriorityListsTheJobsAheadInItsPartition) {
  ClusterSnapshot s = GpuCluster();
  Hold(&s, 0, 812, 8, kNow + 3600);
  Hold(&s, 1, 811, 8, kNow + 1800);
  std::vector<JobRequest> pending = {GpuJob(901, 1, 8, 1310), GpuJob(902, 1, 8, 1200),
                                     GpuJob(903, 1, 8, 1105), GpuJob(904, 1, 8, 1042)};
  ExplainInput in = FromPass(s, pending, 904);
  ASSERT_EQ(in.reason, "Priority");
  EXPECT_EQ(in.ahead_count, 3);
  const std::string text = Explain(s, in, kNow, At);
  EXPECT_EQ(text.substr(0, text.find(';')),
            "behind 3 higher-priority jobs in partition gpu (priority 1042 vs 1310, 1200, 1105)");
  in.queue_order = "unicep";  // considered in a queue order: not by priority
  const std::string ordered = Explain(s, in, kNow, At);
  EXPECT_EQ(ordered.substr(0, ordered.find(';')),
            "behind 3 jobs that queue order unicep takes first in partition gpu (priority 1042 vs "
            "1310, 1200, 1105)");
}

TEST(Explain, AccountLimitGivesTheLimitAndWhatIsInUse) {
  ClusterSnapshot s = GpuCluster();
  Hold(&s, 0, 812, 8, kNow + 3600);
  LimitScope vision;
  vision.label = "account vision";
  vision.grp_tres.gpu = 8;
  s.limits.scopes.push_back(vision);
  s.limits.job_scopes[812] = {0};
  s.limits.job_scopes[900] = {0};
  s.limits.running.push_back({812, Tres{8, 0, 1, 8}, 3600});
  ExplainInput in = FromPass(s, {GpuJob(900, 1, 8)}, 900);
  ASSERT_EQ(in.reason, "AssocGrpGRES");
  EXPECT_EQ(Explain(s, in, kNow, At),
            "account vision at its GrpTRES=gres/gpu=8 limit (8 in use, this job asks 8)");
}

TEST(Explain, NeverNamesTheLargestNode) {
  ClusterSnapshot s = GpuCluster();
  JobRequest big = GpuJob(900, 1, 9);
  big.gpu_type = "h100";
  ExplainInput in = FromPass(s, {big}, 900);
  ASSERT_EQ(in.reason, kReasonNodeConfig);
  EXPECT_EQ(Explain(s, in, kNow, At),
            "can never run: asks 9 h100 GPUs per node, the largest node in partition gpu has 8");
  in = FromPass(s, {GpuJob(901, 3, 8)}, 901);
  EXPECT_EQ(Explain(s, in, kNow, At),
            "can never run: asks 3 nodes, partition gpu has 2 that can hold its share");
  JobRequest featured = GpuJob(902, 1, 1);
  featured.constraint = "ib";
  in = FromPass(s, {featured}, 902);
  EXPECT_EQ(Explain(s, in, kNow, At),
            "can never run: no node of partition gpu has the features ib");
}

TEST(Explain, GatesOutsideTheSchedulerSayWhatTheyWaitFor) {
  ClusterSnapshot s = GpuCluster();
  ExplainInput in;
  in.job = GpuJob(900, 1, 8);
  in.partition = "gpu";
  in.reason = "JobHeldUser";
  EXPECT_EQ(Explain(s, in, kNow, At), "held by its user: `scontrol release 900` lets it run");
  in.reason = "JobHeldAdmin";
  EXPECT_EQ(Explain(s, in, kNow, At), "held by an administrator");
  in.reason = "Dependency";
  in.dependencies = {"afterok:811 (811 RUNNING)"};
  EXPECT_EQ(Explain(s, in, kNow, At), "waiting for its dependency: afterok:811 (811 RUNNING)");
  in.reason = "DependencyNeverSatisfied";
  in.dependencies = {"afterok:811 (811 FAILED)"};
  EXPECT_EQ(Explain(s, in, kNow, At),
            "can never run: its dependency failed: afterok:811 (811 FAILED)");
  in.reason = "BeginTime";
  in.begin_time = kNow + 7200;
  EXPECT_EQ(Explain(s, in, kNow, At), "not eligible before T8200 (--begin, in 2 h 0 min)");
  in.reason = "PartitionDown";
  EXPECT_EQ(Explain(s, in, kNow, At), "partition gpu is DOWN");
  in.reason = "SomethingNew";
  EXPECT_EQ(Explain(s, in, kNow, At), "pending, reason SomethingNew");
}

TEST(Explain, MaintenanceNamesTheReservation) {
  ClusterSnapshot s = GpuCluster();
  s.reservations.push_back({"fixup", kNow, kNow + 600, {"gpu1", "gpu2"}, true});
  ExplainInput in = FromPass(s, {GpuJob(900, 1, 8)}, 900);
  ASSERT_EQ(in.reason, kReasonMaint);
  const std::string text = Explain(s, in, kNow, At);
  EXPECT_EQ(text.substr(0, text.find(';')),
            "nodes it needs are reserved for maintenance by fixup until T1600");
}

}  // namespace
}  // namespace sluice::sched
