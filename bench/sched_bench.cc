// Scheduler pass benchmarks (Google Benchmark): a synthetic GPU cluster of 10,000 nodes x
// 8 GPUs, ~97% busy with running jobs (1-8 GPU jobs and multi-node jobs, random end
// times), and 100,000 pending jobs (mixed 1-8 GPU jobs, 10% multi-node, random time
// limits), fixed seed. Results and the command to reproduce: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "sched/scheduler.h"

namespace sluice::sched {
namespace {

constexpr int64_t kNow = 1'700'000'000;
constexpr int kNodes = 10'000;
constexpr int kGpus = 8;
constexpr int kCpus = 64;
constexpr int64_t kMem = 512'000;

struct Workload {
  ClusterSnapshot snapshot;
  std::vector<JobRequest> pending;
  ClusterSnapshot after_end;  // the snapshot once the first running job has ended
  int64_t after_end_now = 0;
};

int GpuCount(std::mt19937& rng) {
  static const int kChoices[] = {1, 1, 1, 1, 2, 2, 4, 4, 8, 8};
  return kChoices[rng() % 10];
}

void Place(ClusterSnapshot* s, RunningJob* job, Node* node, int first_gpu, int gpus) {
  NodeShare share{node->name, {}, kMem / kGpus * gpus, {}, 1};
  for (int g = first_gpu; g < first_gpu + gpus; ++g) {
    share.gpu_ids.push_back(g);
    node->gpus[g].used = true;
    for (int c = g * (kCpus / kGpus); c < (g + 1) * (kCpus / kGpus); ++c) {
      share.cpu_ids.push_back(c);
      node->cpu_used[c] = true;
    }
  }
  node->mem_used_mb += share.mem_mb;
  node->running_jobs += 1;
  job->alloc.push_back(std::move(share));
}

ClusterSnapshot BusyCluster(std::mt19937& rng) {
  ClusterSnapshot s;
  for (int i = 0; i < kNodes; ++i) {
    Node node;
    node.name = "gpu" + std::to_string(100000 + i).substr(1);
    node.cpus = kCpus;
    node.mem_mb = kMem;
    for (int g = 0; g < kGpus; ++g) node.gpus.push_back({g, "h100", false, {}});
    node.cpu_used.assign(kCpus, false);
    s.nodes.push_back(std::move(node));
  }
  int64_t id = 1;
  for (int i = 0; i < kNodes;) {
    RunningJob job{id++, kNow + 60 + static_cast<int64_t>(rng() % 86400), false, {}};
    if (rng() % 20 == 0 && i + 4 <= kNodes) {  // a 4-node job of whole nodes
      for (int k = 0; k < 4; ++k) Place(&s, &job, &s.nodes[i + k], 0, kGpus);
      i += 4;
      s.running.push_back(std::move(job));
      continue;
    }
    int next = 0;  // fill node i with 1-8 GPU jobs, leaving ~3% of GPUs idle
    while (next < kGpus) {
      int gpus = std::min(GpuCount(rng), kGpus - next);
      if (rng() % 33 == 0) {
        next += 1;
        continue;
      }
      Place(&s, &job, &s.nodes[i], next, gpus);
      s.running.push_back(job);
      job = RunningJob{id++, kNow + 60 + static_cast<int64_t>(rng() % 86400), false, {}};
      next += gpus;
    }
    ++i;
  }
  return s;
}

std::vector<JobRequest> Pending(std::mt19937& rng, int count) {
  std::vector<JobRequest> pending;
  for (int j = 0; j < count; ++j) {
    JobRequest job;
    job.job_id = 1'000'000 + j;
    job.priority = count - j;
    if (rng() % 10 == 0) {
      job.num_nodes = 2 + static_cast<int>(rng() % 15);
      job.gpus_per_node = kGpus;
    } else {
      job.gpus_per_node = GpuCount(rng);
    }
    job.cpus_per_node = job.gpus_per_node * (kCpus / kGpus);
    job.mem_per_node_mb = job.gpus_per_node * (kMem / kGpus);
    job.time_limit_s = 60 * (10 + static_cast<int64_t>(rng() % (24 * 60)));
    pending.push_back(std::move(job));
  }
  return pending;
}

const Workload& TheWorkload() {
  static const Workload* w = [] {
    auto* w = new Workload;
    std::mt19937 rng(42);
    w->snapshot = BusyCluster(rng);
    w->pending = Pending(rng, 100'000);
    // One job ends: free it and move the clock to its end.
    w->after_end = w->snapshot;
    auto first = std::min_element(
        w->after_end.running.begin(), w->after_end.running.end(),
        [](const RunningJob& a, const RunningJob& b) { return a.end_time < b.end_time; });
    w->after_end_now = first->end_time;
    for (const NodeShare& share : first->alloc) {
      for (Node& node : w->after_end.nodes) {
        if (node.name != share.node) continue;
        for (int c : share.cpu_ids) node.cpu_used[c] = false;
        for (int g : share.gpu_ids) node.gpus[g].used = false;
        node.mem_used_mb -= share.mem_mb;
        node.running_jobs -= 1;
      }
    }
    w->after_end.running.erase(first);
    return w;
  }();
  return *w;
}

SchedulerConfig Config(SchedulerConfig::Policy policy, int max_job_test) {
  SchedulerConfig config;
  config.policy = policy;
  config.bf_max_job_test = max_job_test;
  return config;
}

void Report(benchmark::State& state, const Plan& plan) {
  int64_t started = 0, reserved = 0;
  for (const Decision& d : plan.decisions) {
    started += d.outcome == Outcome::kStartNow;
    reserved += d.planned_start > 0;
  }
  state.counters["started"] = static_cast<double>(started);
  state.counters["reserved"] = static_cast<double>(reserved);
}

// A full pass: fresh scheduler, the whole queue.
void BM_FullPass(benchmark::State& state, SchedulerConfig::Policy policy) {
  const Workload& w = TheWorkload();
  const SchedulerConfig config = Config(policy, static_cast<int>(state.range(0)));
  Plan plan;
  for (auto _ : state) {
    plan = MakeScheduler(config)->Schedule(w.snapshot, w.pending, kNow);
    benchmark::DoNotOptimize(plan);
  }
  Report(state, plan);
}

// The pass after one running job ends, on a scheduler that has already run the previous
// pass (so any state it keeps across passes is warm).
void BM_PassAfterOneJobEnds(benchmark::State& state, SchedulerConfig::Policy policy) {
  const Workload& w = TheWorkload();
  auto scheduler = MakeScheduler(Config(policy, static_cast<int>(state.range(0))));
  Plan plan = scheduler->Schedule(w.snapshot, w.pending, kNow);
  for (auto _ : state) {
    plan = scheduler->Schedule(w.after_end, w.pending, w.after_end_now);
    benchmark::DoNotOptimize(plan);
  }
  Report(state, plan);
}

using P = SchedulerConfig::Policy;
BENCHMARK_CAPTURE(BM_FullPass, easy, P::kEasy)->Arg(0)->Unit(benchmark::kMillisecond);
// Conservative with bf_max_job_test = 0 (all jobs) takes minutes here: see RESULTS.md.
BENCHMARK_CAPTURE(BM_FullPass, conservative, P::kConservative)
    ->Arg(500)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PassAfterOneJobEnds, easy, P::kEasy)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PassAfterOneJobEnds, conservative, P::kConservative)
    ->Arg(500)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice::sched

BENCHMARK_MAIN();
