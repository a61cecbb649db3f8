// Tests for deriving clusters and job requests from traces, and the metrics math.
#include "sim/workload.h"

#include <gtest/gtest.h>

#include "sim/metrics.h"

namespace sluice::sim {
namespace {

TraceJob Job(std::string id, int64_t submit, int64_t run, int procs, int gpus = 0,
             int64_t requested = 0, int nodes = 0) {
  TraceJob job;
  job.id = std::move(id);
  job.submit_s = submit;
  job.run_s = run;
  job.requested_s = requested > 0 ? requested : run;
  job.procs = procs;
  job.gpus = gpus;
  job.nodes = nodes;
  return job;
}

TEST(Workload, SwfClusterFromMaxProcsOneCpuPerNode) {
  Trace trace;
  trace.max_procs = 240;
  trace.max_nodes = 120;
  trace.jobs = {Job("a", 0, 10, 32, 0, 100), Job("b", 5, 10, 1)};
  auto workload = BuildWorkload(trace, {});
  ASSERT_TRUE(workload.ok()) << workload.status().message();
  EXPECT_EQ(workload->cluster.nodes.size(), 240u);
  EXPECT_EQ(workload->total_cpus, 240);
  EXPECT_EQ(workload->total_gpus, 0);
  const sched::JobRequest& a = workload->jobs[0].request;
  EXPECT_EQ(a.job_id, 1);
  EXPECT_EQ(a.num_nodes, 32);
  EXPECT_EQ(a.cpus_per_node, 1);
  EXPECT_EQ(a.time_limit_s, 100);
  EXPECT_GT(a.priority, workload->jobs[1].request.priority);
  EXPECT_EQ(workload->jobs[0].cpus, 32);
  EXPECT_EQ(workload->jobs[1].request.job_id, 2);
}

TEST(Workload, SwfGroupedNodesShapeJobs) {
  Trace trace;
  trace.max_nodes = 100;  // no MaxProcs: MaxNodes processors
  trace.jobs = {Job("a", 0, 10, 10), Job("b", 0, 10, 3), Job("c", 0, 10, 8)};
  WorkloadOptions options;
  options.cpus_per_node = 4;
  auto workload = BuildWorkload(trace, options);
  ASSERT_TRUE(workload.ok());
  EXPECT_EQ(workload->cluster.nodes.size(), 25u);
  EXPECT_EQ(workload->cluster.nodes[0].cpus, 4);
  // 10 procs on 4-CPU nodes: 3 nodes x 4 CPUs (rounded up per node).
  EXPECT_EQ(workload->jobs[0].request.num_nodes, 3);
  EXPECT_EQ(workload->jobs[0].request.cpus_per_node, 4);
  EXPECT_EQ(workload->jobs[0].cpus, 12);
  EXPECT_EQ(workload->jobs[1].request.num_nodes, 1);
  EXPECT_EQ(workload->jobs[1].request.cpus_per_node, 3);
  EXPECT_EQ(workload->jobs[2].request.num_nodes, 2);
  EXPECT_EQ(workload->jobs[2].request.cpus_per_node, 4);

  options.nodes = 7;
  EXPECT_EQ(BuildWorkload(trace, options)->cluster.nodes.size(), 7u);
}

TEST(Workload, SwfWithoutHeaderUsesWidestJob) {
  Trace trace;
  trace.jobs = {Job("a", 0, 10, 6), Job("b", 0, 10, 17)};
  EXPECT_EQ(BuildWorkload(trace, {})->cluster.nodes.size(), 17u);
}

TEST(Workload, GpuClusterFromPeakDemand) {
  Trace trace;
  trace.kind = TraceKind::kGpu;
  // Peak: a (8) + b (12) overlap at [5, 10) = 20 GPUs -> 3 nodes of 8.
  trace.jobs = {Job("a", 0, 10, 0, 8), Job("b", 5, 20, 0, 12), Job("c", 10, 5, 0, 3),
                Job("d", 30, 5, 0, 4, 0, 2)};
  EXPECT_EQ(PeakGpuDemand(trace.jobs), 20);
  auto workload = BuildWorkload(trace, {});
  ASSERT_TRUE(workload.ok());
  EXPECT_EQ(workload->kind, TraceKind::kGpu);
  EXPECT_EQ(workload->cluster.nodes.size(), 3u);
  EXPECT_EQ(workload->total_gpus, 24);
  EXPECT_EQ(workload->cluster.nodes[0].gpus.size(), 8u);
  const sched::JobRequest& b = workload->jobs[1].request;
  EXPECT_EQ(b.num_nodes, 2);
  EXPECT_EQ(b.gpus_per_node, 6);
  EXPECT_EQ(b.cpus_per_node, 6);
  const sched::JobRequest& d = workload->jobs[3].request;  // trace says 2 nodes
  EXPECT_EQ(d.num_nodes, 2);
  EXPECT_EQ(d.gpus_per_node, 2);
  EXPECT_EQ(workload->jobs[3].gpus, 4);
}

TEST(Workload, GpuTraceNeedsGpus) {
  Trace trace;
  trace.kind = TraceKind::kGpu;
  trace.jobs = {Job("a", 0, 10, 0, 1)};
  Config config;
  config.nodes.push_back(NodeConfig{});
  config.nodes.back().name = "cpu1";
  config.nodes.back().cpus = 4;
  WorkloadOptions options;
  options.config = &config;
  auto workload = BuildWorkload(trace, options);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().message(),
            "a GPU trace needs a cluster with GPUs; the cluster has none");
}

TEST(Workload, ConfigClusterReplacesDerived) {
  Config config;
  for (int i = 1; i <= 2; ++i) {
    NodeConfig node;
    node.name = "gpu" + std::to_string(i);
    node.cpus = 64;
    node.real_memory_mb = 1000;
    for (int g = 0; g < 4; ++g) node.gpus.push_back(GpuDef{g, "h100", "", "", ""});
    config.nodes.push_back(node);
  }
  Trace trace;
  trace.kind = TraceKind::kGpu;
  trace.jobs = {Job("a", 0, 10, 0, 6)};
  WorkloadOptions options;
  options.config = &config;
  auto workload = BuildWorkload(trace, options);
  ASSERT_TRUE(workload.ok());
  ASSERT_EQ(workload->cluster.nodes.size(), 2u);
  EXPECT_EQ(workload->cluster.nodes[1].name, "gpu2");
  EXPECT_EQ(workload->cluster.nodes[1].gpus[3].type, "h100");
  EXPECT_EQ(workload->total_cpus, 128);
  EXPECT_EQ(workload->total_gpus, 8);
  EXPECT_EQ(workload->jobs[0].request.num_nodes, 2);  // 6 GPUs on 4-GPU nodes
  EXPECT_EQ(workload->jobs[0].request.gpus_per_node, 3);
}

TEST(Metrics, PercentileIsNearestRank) {
  std::vector<int64_t> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(Percentile(v, 50), 5);
  EXPECT_EQ(Percentile(v, 95), 10);
  EXPECT_EQ(Percentile(v, 99), 10);
  EXPECT_EQ(Percentile(v, 10), 1);
  EXPECT_EQ(Percentile(v, 11), 2);
  EXPECT_EQ(Percentile({7}, 99), 7);
  EXPECT_EQ(Percentile({}, 50), 0);
  std::vector<int64_t> hundred;
  for (int i = 1; i <= 200; ++i) hundred.push_back(i);
  EXPECT_EQ(Percentile(hundred, 95), 190);
  EXPECT_EQ(Percentile(hundred, 99), 198);
}

TEST(Metrics, BoundedSlowdown) {
  EXPECT_DOUBLE_EQ(BoundedSlowdown(0, 100), 1.0);
  EXPECT_DOUBLE_EQ(BoundedSlowdown(100, 100), 2.0);
  EXPECT_DOUBLE_EQ(BoundedSlowdown(20, 1), 2.1);  // (20 + 1) / tau
  EXPECT_DOUBLE_EQ(BoundedSlowdown(0, 1), 1.0);   // never below 1
}

TEST(Metrics, ComputedFromOutcomes) {
  Workload workload;
  workload.total_cpus = 4;
  auto add = [&](int64_t submit, int64_t run, int64_t cpus) {
    SimJob job;
    job.submit_s = submit;
    job.run_s = run;
    job.cpus = cpus;
    workload.jobs.push_back(job);
  };
  add(0, 10, 4);
  add(0, 20, 2);
  add(5, 10, 2);
  add(6, 10, 8);
  add(7, 10, 1);
  SimResult result;
  result.jobs = {{0, 10, false}, {10, 30, false}, {10, 20, false}, {-1, -1, true}, {-1, -1, false}};
  Metrics m = ComputeMetrics(workload, result);
  EXPECT_EQ(m.jobs, 5);
  EXPECT_EQ(m.started, 3);
  EXPECT_EQ(m.rejected, 1);
  EXPECT_EQ(m.never_started, 1);
  EXPECT_EQ(m.makespan_s, 30);
  // Busy CPU-seconds: 40 + 40 + 20 = 100 over 4 CPUs x 30 s.
  EXPECT_DOUBLE_EQ(m.cpu_utilization, 100.0 / 120.0);
  EXPECT_DOUBLE_EQ(m.utilization, m.cpu_utilization);
  EXPECT_DOUBLE_EQ(m.gpu_utilization, 0.0);
  EXPECT_DOUBLE_EQ(m.mean_wait_s, 5.0);  // waits 0, 10, 5
  EXPECT_EQ(m.p50_wait_s, 5);
  EXPECT_EQ(m.p99_wait_s, 10);
  EXPECT_DOUBLE_EQ(m.mean_bounded_slowdown, (1.0 + 1.5 + 1.5) / 3);
  EXPECT_DOUBLE_EQ(m.mean_jct_s, (10.0 + 30.0 + 15.0) / 3);
}

TEST(Metrics, NothingRanIsAllZero) {
  Workload workload;
  workload.jobs.resize(1);
  SimResult result;
  result.jobs = {{-1, -1, true}};
  Metrics m = ComputeMetrics(workload, result);
  EXPECT_EQ(m.rejected, 1);
  EXPECT_EQ(m.makespan_s, 0);
  EXPECT_DOUBLE_EQ(m.utilization, 0.0);
}

}  // namespace
}  // namespace sluice::sim
