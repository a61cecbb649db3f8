// GPU-cluster CSV reader (normalized, Philly and Alibaba forms): see trace_reader.h.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "sim/trace_reader.h"
#include "sim/trace_util.h"

namespace sluice::sim {

namespace {

using internal::LineError;

enum class CsvForm { kNormalized, kPhilly, kAlibaba };

struct Columns {
  CsvForm form = CsvForm::kNormalized;
  std::map<std::string, size_t, std::less<>> index;  // column name -> position
  size_t count = 0;
};

bool HasAll(const Columns& columns, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (!columns.index.count(std::string_view(name))) return false;
  }
  return true;
}

Expected<Columns> ReadHeader(std::string_view line, std::string_view name) {
  Columns columns;
  std::vector<std::string_view> fields = internal::SplitCsv(line);
  columns.count = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) columns.index.emplace(std::string(fields[i]), i);
  if (HasAll(columns, {"submit_s", "gpus", "runtime_s"})) {
    columns.form = CsvForm::kNormalized;
  } else if (HasAll(columns, {"timestamp", "duration", "num_gpus"})) {
    columns.form = CsvForm::kPhilly;
  } else if (HasAll(columns,
                    {"name", "num_gpu", "creation_time", "deletion_time", "scheduled_time"})) {
    columns.form = CsvForm::kAlibaba;
  } else {
    return LineError(name, 1,
                     "unrecognised GPU CSV header (want job_id,submit_s,gpus,nodes,runtime_s or "
                     "the Philly or Alibaba columns)");
  }
  return columns;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "YYYY-MM-DD HH:MM:SS" (no time zone) -> seconds since the epoch.
std::optional<int64_t> ParseTimestamp(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char tail = 0;
  std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &tail) !=
      6) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

// One CSV row, with helpers that turn a named column into a number or an error.
struct Row {
  const Columns& columns;
  const std::vector<std::string_view>& fields;
  std::string_view name;
  size_t line_no;

  std::string_view Text(std::string_view column) const {
    auto it = columns.index.find(column);
    return it == columns.index.end() ? std::string_view() : fields[it->second];
  }
  // Empty -> nullopt in *out; malformed -> error.
  Status Number(std::string_view column, std::optional<double>* out) const {
    std::string_view text = Text(column);
    out->reset();
    if (text.empty()) return Status::Ok();
    *out = internal::ParseNumber(text);
    if (!*out || !std::isfinite(**out)) {
      return LineError(name, line_no,
                       fmt::format("column '{}' is not a number: '{}'", column, text));
    }
    return Status::Ok();
  }
};

int64_t Round(const std::optional<double>& value, int64_t missing) {
  return value ? std::llround(*value) : missing;
}

Status ParseNormalized(const Row& row, TraceJob* job) {
  std::optional<double> submit, gpus, nodes, runtime;
  RETURN_IF_ERROR(row.Number("submit_s", &submit));
  RETURN_IF_ERROR(row.Number("gpus", &gpus));
  RETURN_IF_ERROR(row.Number("nodes", &nodes));
  RETURN_IF_ERROR(row.Number("runtime_s", &runtime));
  job->id = std::string(row.Text("job_id"));
  if (job->id.empty()) job->id = std::to_string(row.line_no - 1);
  job->submit_s = Round(submit, -1);
  job->gpus = static_cast<int>(Round(gpus, 0));
  job->nodes = static_cast<int>(std::max<int64_t>(0, Round(nodes, 0)));
  job->run_s = Round(runtime, -1);
  return Status::Ok();
}

Status ParsePhilly(const Row& row, TraceJob* job) {
  std::optional<double> duration, gpus;
  RETURN_IF_ERROR(row.Number("duration", &duration));
  RETURN_IF_ERROR(row.Number("num_gpus", &gpus));
  auto submit = ParseTimestamp(row.Text("timestamp"));
  if (!submit) {
    return LineError(
        row.name, row.line_no,
        fmt::format("bad timestamp '{}' (want YYYY-MM-DD HH:MM:SS)", row.Text("timestamp")));
  }
  job->id = std::to_string(row.line_no - 2);
  job->user = std::string(row.Text("cluster"));  // the virtual cluster: the closest to a user
  job->submit_s = *submit;
  job->gpus = static_cast<int>(Round(gpus, 0));
  job->run_s = Round(duration, -1);
  return Status::Ok();
}

Status ParseAlibaba(const Row& row, TraceJob* job) {
  std::optional<double> gpus, created, deleted, scheduled;
  RETURN_IF_ERROR(row.Number("num_gpu", &gpus));
  RETURN_IF_ERROR(row.Number("creation_time", &created));
  RETURN_IF_ERROR(row.Number("deletion_time", &deleted));
  RETURN_IF_ERROR(row.Number("scheduled_time", &scheduled));
  job->id = std::string(row.Text("name"));
  job->submit_s = Round(created, -1);
  job->gpus = static_cast<int>(Round(gpus, 0));
  job->nodes = 1;
  job->run_s = (scheduled && deleted) ? Round(deleted, 0) - Round(scheduled, 0) : -1;
  return Status::Ok();
}

Status ParseRow(const Columns& columns, const Row& row, TraceJob* job) {
  switch (columns.form) {
    case CsvForm::kNormalized:
      return ParseNormalized(row, job);
    case CsvForm::kPhilly:
      return ParsePhilly(row, job);
    case CsvForm::kAlibaba:
      return ParseAlibaba(row, job);
  }
  return Internal("unknown CSV form");
}

}  // namespace

Expected<Trace> ParseGpuCsv(std::string_view text, std::string_view name, int64_t limit) {
  std::vector<std::string_view> lines = internal::SplitLines(text);
  if (lines.empty() || internal::Trim(lines[0]).empty()) {
    return LineError(name, 1, "empty file: no CSV header");
  }
  ASSIGN_OR_RETURN(Columns columns, ReadHeader(lines[0], name));
  Trace trace;
  trace.kind = TraceKind::kGpu;
  trace.name = std::string(name);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (internal::Trim(lines[i]).empty()) continue;
    std::vector<std::string_view> fields = internal::SplitCsv(lines[i]);
    if (fields.size() != columns.count) {
      return LineError(name, i + 1,
                       fmt::format("expected {} columns, got {}", columns.count, fields.size()));
    }
    TraceJob job;
    RETURN_IF_ERROR(ParseRow(columns, Row{columns, fields, name, i + 1}, &job));
    job.requested_s = job.run_s;
    if (job.submit_s >= 0 && job.gpus > 0 && internal::CleanTimes(&job)) {
      trace.jobs.push_back(std::move(job));
    } else {
      ++trace.dropped;
    }
  }
  internal::FinishTrace(&trace, limit);
  return trace;
}

}  // namespace sluice::sim
