#include "common/array_spec.h"

#include <algorithm>
#include <charconv>

namespace sluice {
namespace {

bool ParseNumber(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 12) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

// "a", "a-b" or "a-b:s" appended to `ids`.
bool ParsePart(std::string_view part, int64_t max_size, std::vector<int64_t>* ids) {
  int64_t step = 1;
  size_t colon = part.find(':');
  if (colon != std::string_view::npos) {
    if (!ParseNumber(part.substr(colon + 1), &step) || step < 1) return false;
    part = part.substr(0, colon);
  }
  size_t dash = part.find('-');
  int64_t lo = 0, hi = 0;
  if (!ParseNumber(part.substr(0, dash), &lo)) return false;
  hi = lo;
  if (dash != std::string_view::npos && !ParseNumber(part.substr(dash + 1), &hi)) return false;
  if (dash == std::string_view::npos && colon != std::string_view::npos) return false;
  if (hi < lo || hi >= max_size) return false;
  for (int64_t i = lo; i <= hi; i += step) ids->push_back(i);
  return true;
}

}  // namespace

Expected<ArraySpec> ParseArraySpec(std::string_view spec, int64_t max_array_size) {
  Status bad = InvalidArgument(kMsgInvalidArray);
  ArraySpec out;
  size_t pct = spec.find('%');
  if (pct != std::string_view::npos) {
    int64_t t = 0;
    if (!ParseNumber(spec.substr(pct + 1), &t) || t > INT32_MAX) return bad;
    out.throttle = static_cast<int32_t>(t);
    spec = spec.substr(0, pct);
  }
  if (spec.empty()) return bad;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    if (!ParsePart(spec.substr(pos, comma - pos), max_array_size, &out.task_ids)) return bad;
    pos = comma + 1;
  }
  std::sort(out.task_ids.begin(), out.task_ids.end());
  out.task_ids.erase(std::unique(out.task_ids.begin(), out.task_ids.end()), out.task_ids.end());
  return out;
}

std::string FormatTaskIds(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

int64_t UniformStep(const std::vector<int64_t>& ids) {
  if (ids.size() < 2) return 1;
  int64_t step = ids[1] - ids[0];
  for (size_t i = 2; i < ids.size(); ++i) {
    if (ids[i] - ids[i - 1] != step) return 0;
  }
  return step;
}

}  // namespace sluice
