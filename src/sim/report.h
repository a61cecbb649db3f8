// Output of a simulation run: the plain-text report, the same as JSON, and the per-job
// CSV. Pure and deterministic: fixed field order, fixed float formatting (3 decimals for
// seconds and slowdowns, 4 for utilization fractions), no timestamps or host details.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim/workload.h"

namespace sluice::sim {

// What the run was: shown in the report headers.
struct RunInfo {
  std::string trace;    // file name
  std::string policy;   // fcfs | easy | conservative
  int64_t dropped = 0;  // jobs removed by the trace cleaning rules
};

// The metrics as (name, formatted value) pairs in report order: started, rejected,
// never_started, makespan_s, utilization, cpu_utilization, gpu_utilization, mean_wait_s,
// p50_wait_s, p95_wait_s, p99_wait_s, mean_bounded_slowdown, mean_jct_s,
// max_bounded_slowdown, p95_jct_s, estimate_mae_s, estimate_under_fraction,
// estimate_mean_ratio. The JSON report
// and scenario files' `expect` lines use these names and this formatting.
std::vector<std::pair<std::string, std::string>> MetricFields(const Metrics& metrics);

std::string FormatTextReport(const RunInfo& info, const Workload& workload, const SimResult& result,
                             const Metrics& metrics);
std::string FormatJsonReport(const RunInfo& info, const Workload& workload, const SimResult& result,
                             const Metrics& metrics);

// Header "job_id,trace_id,submit_s,start_s,end_s,wait_s,run_s,nodes,cpus,gpus,time_limit_s,
// state" then one row per job in submit order; state is completed|rejected|never_started
// (start/end/wait empty unless completed). Trace ids containing ',' or '"' are quoted.
std::string FormatJobsCsv(const Workload& workload, const SimResult& result);

}  // namespace sluice::sim
