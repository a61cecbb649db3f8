// `--report DIR`: one self-contained HTML page (DIR/index.html) with inline SVG plots of a
// compare run; no JavaScript, no external resources. Pure and deterministic: the same
// rows give byte-identical text.
//
// Plots, one series per policy (same colours throughout):
//  - utilization (primary resource: CPUs, GPUs on GPU traces) and queue length (jobs
//    submitted and not yet started) over time, each averaged over 200 equal bins;
//  - wait-time CDF (x: wait + 1 s on a log scale);
//  - mean bounded slowdown by job size class (1, 2-4, 5-16, 17-64, 65+ CPUs or GPUs) and
//    by run-time class (< 1 min, 1-10 min, 10 min-1 h, 1-10 h, >= 10 h);
//  - run-time estimate error histogram: log2(estimate / run) in half-unit bins from -6
//    to +10 (estimate = the prediction, else the time limit; metrics.h), as the fraction
//    of jobs per bin.
// The compare table (compare.h) heads the page.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/compare.h"
#include "sim/workload.h"

namespace sluice::sim {

// The time average of a step function over each of `bins` equal bins of [0, horizon],
// divided by `scale`: `steps` are (time, +-change) pairs from level 0; one (bin middle in
// hours, average) point per bin.
std::vector<std::pair<double, double>> BinAverages(std::vector<std::pair<int64_t, double>> steps,
                                                   int64_t horizon, int bins, double scale);

std::string FormatHtmlReport(const std::string& trace, const Workload& workload,
                             const std::vector<CompareRow>& rows);

}  // namespace sluice::sim
