// The compare table: see compare.h.
#include "sim/compare.h"

#include <fmt/format.h>

#include <algorithm>

namespace sluice::sim {

double MaxWaitRatio(const Workload& workload, const SimResult& result, const SimResult& reference) {
  double worst = 0;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const JobOutcome& a = result.jobs[i];
    const JobOutcome& b = reference.jobs[i];
    if (a.start_s < 0 || b.start_s < 0 || a.rejected || b.rejected) continue;
    const int64_t submit = workload.jobs[i].submit_s;
    const double ratio = static_cast<double>(a.start_s - submit + kWaitRatioFloorS) /
                         static_cast<double>(b.start_s - submit + kWaitRatioFloorS);
    worst = std::max(worst, ratio);
  }
  return worst;
}

std::string FormatCompareTable(const std::string& trace, const Workload& workload,
                               const std::vector<CompareRow>& rows) {
  const bool gpu = workload.kind == TraceKind::kGpu;
  size_t ref = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].policy == "easy") {
      ref = i;
      break;
    }
  }
  std::string out =
      fmt::format("trace {} ({} jobs, {} nodes, {} CPUs, {} GPUs); reference {}\n", trace,
                  workload.jobs.size(), workload.cluster.nodes.size(), workload.total_cpus,
                  workload.total_gpus, rows.empty() ? "-" : rows[ref].policy);
  out += fmt::format("| {:<22} | {:>10} | {:>8} | {:>8} | {:>8} | {:>8} | {:>9} | {:>6} | {:>10} |",
                     "policy", "wait mean", "p50", "p95", "p99", "bsld", "bsld max", "util",
                     "makespan");
  if (gpu) out += fmt::format(" {:>10} | {:>9} |", "JCT mean", "JCT p95");
  out += fmt::format(" {:>8} | {:>7} | {:>10} |\n", "est MAE", "under", "wait ratio");
  out += "|" + std::string(24, '-') + "|" + std::string(12, '-') + "|";
  for (int i = 0; i < 4; ++i) out += std::string(10, '-') + "|";
  out += std::string(11, '-') + "|" + std::string(8, '-') + "|" + std::string(12, '-') + "|";
  if (gpu) out += std::string(12, '-') + "|" + std::string(11, '-') + "|";
  out += std::string(10, '-') + "|" + std::string(9, '-') + "|" + std::string(12, '-') + "|\n";
  for (const CompareRow& row : rows) {
    const Metrics& m = row.metrics;
    out += fmt::format(
        "| {:<22} | {:>10.1f} | {:>8} | {:>8} | {:>8} | {:>8.2f} | {:>9.1f} | {:>6.4f} | {:>10} |",
        row.policy, m.mean_wait_s, m.p50_wait_s, m.p95_wait_s, m.p99_wait_s,
        m.mean_bounded_slowdown, m.max_bounded_slowdown, m.utilization, m.makespan_s);
    if (gpu) out += fmt::format(" {:>10.1f} | {:>9} |", m.mean_jct_s, m.p95_jct_s);
    out += fmt::format(" {:>8.0f} | {:>6.1f}% | {:>10.2f} |\n", m.estimate_mae_s,
                       100 * m.estimate_under_fraction,
                       MaxWaitRatio(workload, row.result, rows[ref].result));
  }
  return out;
}

}  // namespace sluice::sim
