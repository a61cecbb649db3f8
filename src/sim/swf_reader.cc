// Standard Workload Format reader: see trace_reader.h.
#include <fmt/format.h>

#include <cmath>

#include "sim/trace_reader.h"
#include "sim/trace_util.h"

namespace sluice::sim {

namespace {

using internal::LineError;

constexpr size_t kSwfFields = 18;
constexpr const char* kFieldNames[kSwfFields] = {
    "job number",       "submit time",   "wait time",       "run time",       "allocated procs",
    "average CPU time", "used memory",   "requested procs", "requested time", "requested memory",
    "status",           "user id",       "group id",        "executable id",  "queue id",
    "partition id",     "preceding job", "think time"};

// Reads "; MaxProcs: 240"-style header values into the trace.
void ReadHeader(std::string_view line, Trace* trace) {
  line.remove_prefix(1);
  line = internal::Trim(line);
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string_view key = internal::Trim(line.substr(0, colon));
  auto value = internal::ParseNumber(internal::Trim(line.substr(colon + 1)));
  if (!value || *value < 0) return;
  if (key == "MaxProcs") trace->max_procs = static_cast<int>(*value);
  if (key == "MaxNodes") trace->max_nodes = static_cast<int>(*value);
}

// Parses one job line; false in `*keep` when the cleaning rules drop it.
Status ParseJobLine(std::string_view line, std::string_view name, size_t line_no, TraceJob* job,
                    bool* keep) {
  std::vector<std::string_view> fields = internal::SplitWhitespace(line);
  if (fields.size() != kSwfFields) {
    return LineError(name, line_no,
                     fmt::format("expected {} fields, got {}", kSwfFields, fields.size()));
  }
  double values[kSwfFields];
  for (size_t i = 0; i < kSwfFields; ++i) {
    auto value = internal::ParseNumber(fields[i]);
    if (!value || !std::isfinite(*value)) {
      return LineError(
          name, line_no,
          fmt::format("field {} ({}) is not a number: '{}'", i + 1, kFieldNames[i], fields[i]));
    }
    values[i] = *value;
  }
  job->id = std::string(fields[0]);
  job->submit_s = std::llround(values[1]);
  job->run_s = std::llround(values[3]);
  job->requested_s = std::llround(values[8]);
  if (values[11] >= 0) job->user = fmt::format("{}", std::llround(values[11]));
  if (values[13] >= 0) job->app = fmt::format("{}", std::llround(values[13]));
  const double procs = values[7] > 0 ? values[7] : values[4];
  job->procs = procs > 0 ? static_cast<int>(std::llround(procs)) : 0;
  *keep = values[1] >= 0 && job->procs > 0 && internal::CleanTimes(job);
  return Status::Ok();
}

}  // namespace

Expected<Trace> ParseSwf(std::string_view text, std::string_view name, int64_t limit) {
  Trace trace;
  trace.kind = TraceKind::kCpu;
  trace.name = std::string(name);
  std::vector<std::string_view> lines = internal::SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = internal::Trim(lines[i]);
    if (line.empty()) continue;
    if (line.front() == ';') {
      ReadHeader(line, &trace);
      continue;
    }
    TraceJob job;
    bool keep = false;
    RETURN_IF_ERROR(ParseJobLine(line, name, i + 1, &job, &keep));
    if (keep) {
      trace.jobs.push_back(std::move(job));
    } else {
      ++trace.dropped;
    }
  }
  internal::FinishTrace(&trace, limit);
  return trace;
}

}  // namespace sluice::sim
