// `--compare`: several policies replayed on the same workload, one table. Pure and
// deterministic (fixed formatting, rows in the order given).
//
// Columns: policy, mean / p50 / p95 / p99 wait (s), mean and max bounded slowdown
// (tau = 10 s), utilization, makespan (s); GPU traces add mean and p95 JCT (s); then the
// run-time estimate accuracy (MAE in s, % under-estimated; metrics.h) and, against the
// reference run (the row named "easy" when there is one, else the first), the largest
// per-job wait ratio (wait + 600 s) / (reference wait + 600 s) over jobs that started in
// both ("max wait ratio": the starvation check; 600 s keeps jobs that never waited under
// the reference from dividing by zero).
#pragma once

#include <string>
#include <vector>

#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim/workload.h"

namespace sluice::sim {

struct CompareRow {
  std::string policy;
  SimResult result;
  Metrics metrics;
};

inline constexpr int64_t kWaitRatioFloorS = 600;

// The largest (wait + floor) / (reference wait + floor) over jobs started in both.
double MaxWaitRatio(const Workload& workload, const SimResult& result, const SimResult& reference);

std::string FormatCompareTable(const std::string& trace, const Workload& workload,
                               const std::vector<CompareRow>& rows);

}  // namespace sluice::sim
