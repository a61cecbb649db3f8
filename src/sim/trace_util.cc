// Shared trace-reader helpers: see trace_util.h.
#include "sim/trace_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace sluice::sim::internal {

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

std::vector<std::string_view> SplitWhitespace(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < line.size()) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return fields;
}

std::string_view Trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (true) {
    size_t end = line.find(',', pos);
    if (end == std::string_view::npos) {
      fields.push_back(Trim(line.substr(pos)));
      return fields;
    }
    fields.push_back(Trim(line.substr(pos, end - pos)));
    pos = end + 1;
  }
}

std::optional<double> ParseNumber(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

Status LineError(std::string_view name, size_t line, std::string_view message) {
  return InvalidArgument(fmt::format("{}:{}: {}", name, line, message));
}

bool CleanTimes(TraceJob* job) {
  if (job->run_s <= 0) return false;
  job->requested_known = job->requested_s > 0;
  if (job->requested_s <= 0) job->requested_s = job->run_s;
  job->run_s = std::min(job->run_s, job->requested_s);
  return true;
}

void FinishTrace(Trace* trace, int64_t limit) {
  std::stable_sort(trace->jobs.begin(), trace->jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  if (limit > 0 && static_cast<int64_t>(trace->jobs.size()) > limit) trace->jobs.resize(limit);
  if (trace->jobs.empty()) return;
  const int64_t first = trace->jobs.front().submit_s;
  for (TraceJob& job : trace->jobs) job.submit_s -= first;
}

}  // namespace sluice::sim::internal

namespace sluice::sim {

int64_t ApplyPublishedFilter(Trace* trace) {
  const size_t before = trace->jobs.size();
  std::erase_if(trace->jobs, [&](const TraceJob& job) {
    return !job.requested_known || (trace->max_procs > 0 && job.procs > trace->max_procs);
  });
  const int64_t dropped = static_cast<int64_t>(before - trace->jobs.size());
  trace->dropped += dropped;
  return dropped;
}

}  // namespace sluice::sim
