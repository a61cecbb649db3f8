#include "common/array_spec.h"

#include <algorithm>
#include <charconv>
#include <tuple>

namespace sluice {
namespace {

bool ParseNumber(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 12) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

// "a", "a-b" or "a-b:s"; hi is rounded down onto the progression.
bool ParsePart(std::string_view part, int64_t max_size, ArrayRange* r) {
  size_t colon = part.find(':');
  if (colon != std::string_view::npos) {
    if (!ParseNumber(part.substr(colon + 1), &r->step) || r->step < 1) return false;
    part = part.substr(0, colon);
  }
  size_t dash = part.find('-');
  if (!ParseNumber(part.substr(0, dash), &r->lo)) return false;
  r->hi = r->lo;
  if (dash != std::string_view::npos && !ParseNumber(part.substr(dash + 1), &r->hi)) return false;
  if (dash == std::string_view::npos && colon != std::string_view::npos) return false;
  if (r->hi < r->lo || r->hi >= max_size) return false;
  r->hi = r->lo + (r->hi - r->lo) / r->step * r->step;
  return true;
}

// Ranges of one progression (same step and residue) that touch become one, so no id is
// expanded twice from them.
std::vector<ArrayRange> MergeProgressions(std::vector<ArrayRange> rs) {
  auto key = [](const ArrayRange& r) { return std::make_tuple(r.step, r.lo % r.step, r.lo); };
  std::sort(rs.begin(), rs.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  std::vector<ArrayRange> out;
  for (const ArrayRange& r : rs) {
    if (!out.empty()) {
      ArrayRange& last = out.back();
      if (last.step == r.step && last.lo % last.step == r.lo % r.step &&
          r.lo <= last.hi + last.step) {
        last.hi = std::max(last.hi, r.hi);
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

// Sorted unique ids of the merged ranges: a bitmap over [0, max_id] when that is smaller
// than listing the ids, else the list sorted.
std::vector<int64_t> Expand(const std::vector<ArrayRange>& rs, int64_t max_id) {
  int64_t work = 0;
  for (const ArrayRange& r : rs) work += r.size();
  std::vector<int64_t> ids;
  if (work <= (max_id + 1) / 8) {
    ids.reserve(static_cast<size_t>(work));
    for (const ArrayRange& r : rs) {
      for (int64_t i = r.lo; i <= r.hi; i += r.step) ids.push_back(i);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  }
  std::vector<bool> seen(static_cast<size_t>(max_id) + 1);
  for (const ArrayRange& r : rs) {
    for (int64_t i = r.lo; i <= r.hi; i += r.step) seen[static_cast<size_t>(i)] = true;
  }
  for (int64_t i = 0; i <= max_id; ++i) {
    if (seen[static_cast<size_t>(i)]) ids.push_back(i);
  }
  return ids;
}

}  // namespace

Expected<ArrayRanges> ParseArrayRanges(std::string_view spec, int64_t max_array_size) {
  Status bad = InvalidArgument(kMsgInvalidArray);
  ArrayRanges out;
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
    ArrayRange r;
    if (!ParsePart(spec.substr(pos, comma - pos), max_array_size, &r)) return bad;
    out.max_id = std::max(out.max_id, r.hi);
    out.count_upper += r.size();
    out.ranges.push_back(r);
    pos = comma + 1;
  }
  return out;
}

Expected<ArraySpec> ParseArraySpec(std::string_view spec, int64_t max_array_size) {
  ASSIGN_OR_RETURN(ArrayRanges rs,
                   ParseArrayRanges(spec, std::min(max_array_size, kMaxArraySizeCeiling)));
  ArraySpec out;
  out.throttle = rs.throttle;
  out.task_ids = Expand(MergeProgressions(std::move(rs.ranges)), rs.max_id);
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

std::string PendingTasksString(std::vector<int64_t> ids, int64_t throttle) {
  std::sort(ids.begin(), ids.end());
  std::string s = "[" + FormatTaskIds(ids);
  if (throttle > 0) s += "%" + std::to_string(throttle);
  return s + "]";
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
