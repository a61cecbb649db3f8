// Simulation metrics, computed from the jobs and their outcomes. Pure.
//
// Definitions (over jobs that started; rejected and never-started jobs are only counted):
//  - wait = start - submit; mean and nearest-rank percentiles p50/p95/p99
//    (the value at rank ceil(p/100 * n) in ascending order);
//  - bounded slowdown = max(1, (wait + run) / max(run, tau)), tau = 10 s; mean;
//  - completion time (JCT) = end - submit; mean;
//  - makespan = last end - first submit (0 when nothing ran);
//  - utilization of a resource = resource-seconds held by jobs / (capacity x makespan);
//    the primary one is CPU for SWF traces and GPU for GPU traces;
//  - run-time estimate accuracy: the estimate is the prediction a job was queued with
//    (JobOutcome.predicted_s), else its time limit (unlimited jobs are left out); mean
//    absolute error, the fraction under-estimated (estimate < run) and the mean of
//    estimate / run.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulator.h"
#include "sim/workload.h"

namespace sluice::sim {

inline constexpr double kSlowdownTauS = 10.0;

struct Metrics {
  int64_t jobs = 0;           // jobs replayed
  int64_t started = 0;        // jobs that ran (all of them finish)
  int64_t rejected = 0;       // could never run on the cluster
  int64_t never_started = 0;  // still pending when the replay ran out of events
  int64_t makespan_s = 0;
  double cpu_utilization = 0;
  double gpu_utilization = 0;
  double utilization = 0;  // CPU (SWF) or GPU (GPU traces)
  double mean_wait_s = 0;
  int64_t p50_wait_s = 0;
  int64_t p95_wait_s = 0;
  int64_t p99_wait_s = 0;
  double mean_bounded_slowdown = 0;
  double mean_jct_s = 0;
  double max_bounded_slowdown = 0;
  int64_t p95_jct_s = 0;
  int64_t estimated = 0;  // started jobs with an estimate
  double estimate_mae_s = 0;
  double estimate_under_fraction = 0;
  double estimate_mean_ratio = 0;
};

Metrics ComputeMetrics(const Workload& workload, const SimResult& result);

// Nearest-rank percentile (0 < p <= 100) of ascending `sorted`; 0 when empty.
int64_t Percentile(const std::vector<int64_t>& sorted, int p);

double BoundedSlowdown(int64_t wait_s, int64_t run_s);

}  // namespace sluice::sim
