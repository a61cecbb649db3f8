// Metrics math: see metrics.h.
#include "sim/metrics.h"

#include <algorithm>
#include <cstdlib>

namespace sluice::sim {

int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  const int64_t n = static_cast<int64_t>(sorted.size());
  int64_t rank = (static_cast<int64_t>(p) * n + 99) / 100;  // ceil(p * n / 100)
  rank = std::clamp<int64_t>(rank, 1, n);
  return sorted[rank - 1];
}

double BoundedSlowdown(int64_t wait_s, int64_t run_s) {
  const double run = static_cast<double>(run_s);
  return std::max(1.0, (static_cast<double>(wait_s) + run) / std::max(run, kSlowdownTauS));
}

Metrics ComputeMetrics(const Workload& workload, const SimResult& result) {
  Metrics m;
  m.jobs = static_cast<int64_t>(workload.jobs.size());
  std::vector<int64_t> waits, jcts;
  waits.reserve(workload.jobs.size());
  jcts.reserve(workload.jobs.size());
  double abs_error_sum = 0, ratio_sum = 0;
  int64_t under = 0;
  double wait_sum = 0, slowdown_sum = 0, jct_sum = 0, cpu_seconds = 0, gpu_seconds = 0;
  int64_t first_submit = INT64_MAX, last_end = INT64_MIN;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const SimJob& job = workload.jobs[i];
    const JobOutcome& outcome = result.jobs[i];
    first_submit = std::min(first_submit, job.submit_s);
    if (outcome.rejected) {
      ++m.rejected;
      continue;
    }
    if (outcome.start_s < 0) {
      ++m.never_started;
      continue;
    }
    ++m.started;
    const int64_t wait = outcome.start_s - job.submit_s;
    const int64_t run = outcome.end_s - outcome.start_s;
    waits.push_back(wait);
    wait_sum += static_cast<double>(wait);
    const double slowdown = BoundedSlowdown(wait, run);
    slowdown_sum += slowdown;
    m.max_bounded_slowdown = std::max(m.max_bounded_slowdown, slowdown);
    jct_sum += static_cast<double>(outcome.end_s - job.submit_s);
    jcts.push_back(outcome.end_s - job.submit_s);
    const int64_t estimate =
        outcome.predicted_s > 0 ? outcome.predicted_s : job.request.time_limit_s;
    if (estimate > 0 && run > 0) {
      ++m.estimated;
      abs_error_sum += static_cast<double>(std::llabs(estimate - run));
      ratio_sum += static_cast<double>(estimate) / static_cast<double>(run);
      under += estimate < run ? 1 : 0;
    }
    cpu_seconds += static_cast<double>(job.cpus) * static_cast<double>(run);
    gpu_seconds += static_cast<double>(job.gpus) * static_cast<double>(run);
    last_end = std::max(last_end, outcome.end_s);
  }
  if (m.started == 0) return m;
  const double n = static_cast<double>(m.started);
  m.makespan_s = last_end - first_submit;
  const double span = static_cast<double>(std::max<int64_t>(m.makespan_s, 1));
  if (workload.total_cpus > 0) m.cpu_utilization = cpu_seconds / (workload.total_cpus * span);
  if (workload.total_gpus > 0) m.gpu_utilization = gpu_seconds / (workload.total_gpus * span);
  m.utilization = workload.kind == TraceKind::kGpu ? m.gpu_utilization : m.cpu_utilization;
  std::sort(waits.begin(), waits.end());
  m.mean_wait_s = wait_sum / n;
  m.p50_wait_s = Percentile(waits, 50);
  m.p95_wait_s = Percentile(waits, 95);
  m.p99_wait_s = Percentile(waits, 99);
  m.mean_bounded_slowdown = slowdown_sum / n;
  m.mean_jct_s = jct_sum / n;
  std::sort(jcts.begin(), jcts.end());
  m.p95_jct_s = Percentile(jcts, 95);
  if (m.estimated > 0) {
    const double e = static_cast<double>(m.estimated);
    m.estimate_mae_s = abs_error_sum / e;
    m.estimate_under_fraction = static_cast<double>(under) / e;
    m.estimate_mean_ratio = ratio_sum / e;
  }
  return m;
}

}  // namespace sluice::sim
