// Helpers shared by the trace readers (internal to src/sim): line splitting, number
// parsing, the cleaning rules of trace.h and the final sort/limit/normalise step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/trace.h"

namespace sluice::sim::internal {

// Splits `text` into lines (without '\n' or a trailing '\r').
std::vector<std::string_view> SplitLines(std::string_view text);
// Fields separated by runs of spaces/tabs.
std::vector<std::string_view> SplitWhitespace(std::string_view line);
// Fields separated by ','; whitespace around each field is trimmed.
std::vector<std::string_view> SplitCsv(std::string_view line);
std::string_view Trim(std::string_view text);

// A decimal number (integer or floating point, optional sign); nullopt if malformed.
std::optional<double> ParseNumber(std::string_view text);

// "file:line: message" as an InvalidArgument status.
Status LineError(std::string_view name, size_t line, std::string_view message);

// Applies the run/requested time rules of trace.h; false = drop the job.
bool CleanTimes(TraceJob* job);

// Stable-sorts by submit time, keeps the first `limit` jobs (0 = all) and makes submit
// times relative to the earliest one.
void FinishTrace(Trace* trace, int64_t limit);

}  // namespace sluice::sim::internal
