// The HTML/SVG report: see html_report.h.
#include "sim/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace sluice::sim {

namespace {

constexpr int kSamples = 200;
constexpr double kWidth = 640, kHeight = 240, kLeft = 60, kBottom = 30, kTop = 20, kRight = 10;
constexpr std::array<const char*, 10> kColors = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                                 "#bcbd22", "#17becf"};

const char* Color(size_t i) { return kColors[i % kColors.size()]; }

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y) in data units
};

// A line chart with axes from 0 (or min x) to the data's maximum; log_x: x > 0 on log10.
std::string LineChart(const std::string& title, const std::string& x_label,
                      const std::string& y_label, const std::vector<Series>& series, bool log_x) {
  double x_min = INFINITY, x_max = -INFINITY, y_max = 0;
  for (const Series& s : series) {
    for (auto [x, y] : s.points) {
      const double xv = log_x ? std::log10(std::max(x, 1.0)) : x;
      x_min = std::min(x_min, xv);
      x_max = std::max(x_max, xv);
      y_max = std::max(y_max, y);
    }
  }
  if (!std::isfinite(x_min)) x_min = 0, x_max = 1;
  if (x_max <= x_min) x_max = x_min + 1;
  if (y_max <= 0) y_max = 1;
  const double w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
  std::string out = fmt::format(
      "<h3>{}</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
      Escape(title), kWidth, kHeight);
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft,
      kTop, w, h);
  const std::string x_lo = log_x ? fmt::format("1e{:.1f}", x_min) : fmt::format("{:.0f}", x_min);
  const std::string x_hi = log_x ? fmt::format("1e{:.1f}", x_max) : fmt::format("{:.0f}", x_max);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", kLeft, kHeight - 12,
                     x_lo);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
                     kLeft + w, kHeight - 12, x_hi);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + w / 2, kHeight - 2, Escape(x_label));
  out += fmt::format("<text x=\"2\" y=\"{}\" font-size=\"11\">{:.3g}</text>\n", kTop + 10, y_max);
  out += fmt::format("<text x=\"2\" y=\"{}\" font-size=\"11\">0</text>\n", kTop + h);
  out += fmt::format("<text x=\"2\" y=\"{}\" font-size=\"11\">{}</text>\n", kTop + h / 2,
                     Escape(y_label));
  for (size_t i = 0; i < series.size(); ++i) {
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"",
                       Color(i));
    for (auto [x, y] : series[i].points) {
      const double xv = log_x ? std::log10(std::max(x, 1.0)) : x;
      out += fmt::format("{:.1f},{:.1f} ", kLeft + w * (xv - x_min) / (x_max - x_min),
                         kTop + h - h * y / y_max);
    }
    out += "\"/>\n";
  }
  return out + "</svg>\n";
}

// Grouped bars: one group per class, one bar per series (values[series][class]).
std::string BarChart(const std::string& title, const std::vector<std::string>& classes,
                     const std::vector<std::string>& names,
                     const std::vector<std::vector<double>>& values) {
  double y_max = 0;
  for (const auto& row : values)
    for (double v : row) y_max = std::max(y_max, v);
  if (y_max <= 0) y_max = 1;
  const double w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
  const double group = w / std::max<size_t>(1, classes.size());
  const double bar = group * 0.8 / std::max<size_t>(1, names.size());
  std::string out = fmt::format(
      "<h3>{}</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n",
      Escape(title), kWidth, kHeight);
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>\n", kLeft,
      kTop, w, h);
  out += fmt::format("<text x=\"2\" y=\"{}\" font-size=\"11\">{:.3g}</text>\n", kTop + 10, y_max);
  for (size_t c = 0; c < classes.size(); ++c) {
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
        kLeft + group * (c + 0.5), kHeight - 12, Escape(classes[c]));
    for (size_t s = 0; s < names.size(); ++s) {
      const double v = values[s][c];
      const double bh = h * v / y_max;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{} {}: {:.3g}</title></rect>\n",
          kLeft + group * c + group * 0.1 + bar * s, kTop + h - bh, bar, bh, Color(s),
          Escape(names[s]), Escape(classes[c]), v);
    }
  }
  return out + "</svg>\n";
}

std::string Legend(const std::vector<CompareRow>& rows) {
  std::string out = "<p>";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("<span style=\"color:{}\">&#9632; {}</span> &nbsp; ", Color(i),
                       Escape(rows[i].policy));
  }
  return out + "</p>\n";
}

bool Ran(const JobOutcome& o) { return !o.rejected && o.start_s >= 0; }

// Utilization and queue length, averaged over kSamples bins of [0, horizon].
void OverTime(const Workload& workload, const SimResult& result, int64_t horizon, Series* util,
              Series* queue) {
  const bool gpu = workload.kind == TraceKind::kGpu;
  const double capacity =
      static_cast<double>(std::max<int64_t>(1, gpu ? workload.total_gpus : workload.total_cpus));
  std::vector<std::pair<int64_t, double>> use;      // (time, +-resources)
  std::vector<std::pair<int64_t, double>> waiting;  // (time, +-1)
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const SimJob& job = workload.jobs[i];
    const JobOutcome& o = result.jobs[i];
    if (o.rejected) continue;
    const double r = static_cast<double>(gpu ? job.gpus : job.cpus);
    waiting.emplace_back(job.submit_s, 1);
    if (!Ran(o)) continue;
    waiting.emplace_back(o.start_s, -1);
    use.emplace_back(o.start_s, r);
    use.emplace_back(o.end_s, -r);
  }
  util->points = BinAverages(std::move(use), horizon, kSamples, capacity);
  queue->points = BinAverages(std::move(waiting), horizon, kSamples, 1.0);
}

int SizeClass(int64_t size) {
  if (size <= 1) return 0;
  if (size <= 4) return 1;
  if (size <= 16) return 2;
  if (size <= 64) return 3;
  return 4;
}

int RuntimeClass(int64_t run_s) {
  if (run_s < 60) return 0;
  if (run_s < 600) return 1;
  if (run_s < 3600) return 2;
  if (run_s < 36000) return 3;
  return 4;
}

constexpr int kErrorBins = 32;  // half-unit bins of log2(estimate / run) from -6 to +10

}  // namespace

std::vector<std::pair<double, double>> BinAverages(std::vector<std::pair<int64_t, double>> steps,
                                                   int64_t horizon, int bins, double scale) {
  std::sort(steps.begin(), steps.end());
  std::vector<std::pair<double, double>> points;
  size_t next = 0;
  double level = 0;
  for (int k = 0; k < bins; ++k) {
    const int64_t from = horizon * k / bins, to = horizon * (k + 1) / bins;
    double area = 0;
    int64_t at = from;
    while (next < steps.size() && steps[next].first < to) {
      const int64_t t = std::max(steps[next].first, from);
      area += level * static_cast<double>(t - at);
      at = t;
      level += steps[next++].second;
    }
    area += level * static_cast<double>(to - at);
    const double width = static_cast<double>(std::max<int64_t>(1, to - from));
    points.emplace_back(static_cast<double>(from + to) / 2 / 3600.0, area / width / scale);
  }
  return points;
}

std::string FormatHtmlReport(const std::string& trace, const Workload& workload,
                             const std::vector<CompareRow>& rows) {
  const bool gpu = workload.kind == TraceKind::kGpu;
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Sluice simulation: " +
      Escape(trace) +
      "</title>\n<style>body{font-family:sans-serif;margin:20px}pre{font-size:12px}</style>\n"
      "</head><body>\n";
  out += "<h1>Sluice simulation: " + Escape(trace) + "</h1>\n";
  out += "<pre>" + Escape(FormatCompareTable(trace, workload, rows)) + "</pre>\n";
  out += Legend(rows);
  int64_t horizon = 1;
  for (const CompareRow& row : rows) {
    for (size_t i = 0; i < workload.jobs.size(); ++i) {
      if (Ran(row.result.jobs[i])) horizon = std::max(horizon, row.result.jobs[i].end_s);
    }
  }
  std::vector<Series> util, queue, cdf, errors;
  std::vector<std::vector<double>> by_size, by_runtime;
  for (const CompareRow& row : rows) {
    util.push_back({row.policy, {}});
    queue.push_back({row.policy, {}});
    OverTime(workload, row.result, horizon, &util.back(), &queue.back());
    std::vector<int64_t> waits;
    std::array<double, 5> size_sum{}, size_n{}, run_sum{}, run_n{};
    std::array<double, kErrorBins> bins{};
    double estimated = 0;
    for (size_t i = 0; i < workload.jobs.size(); ++i) {
      const SimJob& job = workload.jobs[i];
      const JobOutcome& o = row.result.jobs[i];
      if (!Ran(o)) continue;
      const int64_t wait = o.start_s - job.submit_s, run = o.end_s - o.start_s;
      waits.push_back(wait);
      const double bsld = BoundedSlowdown(wait, run);
      const int sc = SizeClass(gpu ? job.gpus : job.cpus), rc = RuntimeClass(run);
      size_sum[sc] += bsld;
      size_n[sc] += 1;
      run_sum[rc] += bsld;
      run_n[rc] += 1;
      const int64_t estimate = o.predicted_s > 0 ? o.predicted_s : job.request.time_limit_s;
      if (estimate > 0 && run > 0) {
        const double e = std::log2(static_cast<double>(estimate) / static_cast<double>(run));
        const int bin = std::clamp(static_cast<int>(std::floor((e + 6) * 2)), 0, kErrorBins - 1);
        bins[bin] += 1;
        estimated += 1;
      }
    }
    std::sort(waits.begin(), waits.end());
    cdf.push_back({row.policy, {}});
    const size_t n = waits.size();
    for (int k = 0; k <= kSamples && n > 0; ++k) {
      const size_t idx = std::min(n - 1, (n - 1) * k / kSamples);
      cdf.back().points.emplace_back(static_cast<double>(waits[idx] + 1),
                                     static_cast<double>(idx + 1) / static_cast<double>(n));
    }
    by_size.emplace_back();
    by_runtime.emplace_back();
    for (int c = 0; c < 5; ++c) {
      by_size.back().push_back(size_n[c] > 0 ? size_sum[c] / size_n[c] : 0);
      by_runtime.back().push_back(run_n[c] > 0 ? run_sum[c] / run_n[c] : 0);
    }
    errors.push_back({row.policy, {}});
    for (int b = 0; b < kErrorBins; ++b) {
      errors.back().points.emplace_back(-6 + 0.5 * b + 0.25,
                                        estimated > 0 ? bins[b] / estimated : 0);
    }
  }
  std::vector<std::string> names;
  for (const CompareRow& row : rows) names.push_back(row.policy);
  out += LineChart(gpu ? "GPU utilization over time" : "CPU utilization over time", "time (h)",
                   "util", util, false);
  out += LineChart("Queue length over time", "time (h)", "jobs", queue, false);
  out += LineChart("Wait-time CDF", "wait + 1 (s, log)", "fraction", cdf, true);
  out += BarChart(
      gpu ? "Mean bounded slowdown by job size (GPUs)" : "Mean bounded slowdown by job size (CPUs)",
      {"1", "2-4", "5-16", "17-64", "65+"}, names, by_size);
  out += BarChart("Mean bounded slowdown by run time", {"<1m", "1-10m", "10m-1h", "1-10h", ">=10h"},
                  names, by_runtime);
  // The error histogram's x axis is log2(estimate / run) shifted to start at 0 for the
  // linear chart: label it plainly.
  for (Series& s : errors)
    for (auto& p : s.points) p.first += 6;
  out += LineChart("Run-time estimate error: log2(estimate / run) + 6 (6 = exact)",
                   "log2(estimate/run) + 6", "fraction", errors, false);
  return out + "</body></html>\n";
}

}  // namespace sluice::sim
