#include "common/dependency_spec.h"

#include <charconv>

namespace sluice {
namespace {

constexpr const char* kTypes[] = {"after", "afterany", "afterok", "afternotok", "aftercorr"};

bool ParseNumber(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? s.npos : next - pos));
    if (next == std::string_view::npos) return out;
    pos = next + 1;
  }
}

// "ID", "ID_TASK", "ID+min" (after only).
bool ParseTarget(std::string_view s, DepTerm* t) {
  size_t plus = s.find('+');
  if (plus != std::string_view::npos) {
    if (t->type != "after" || !ParseNumber(s.substr(plus + 1), &t->delay_min)) return false;
    s = s.substr(0, plus);
  }
  size_t us = s.find('_');
  if (us != std::string_view::npos) {
    if (!ParseNumber(s.substr(us + 1), &t->task_id)) return false;
    s = s.substr(0, us);
  }
  return ParseNumber(s, &t->job_id) && t->job_id > 0;
}

bool ParseGroup(std::string_view group, std::vector<DepTerm>* out) {
  if (group == "singleton") {
    if (out->size() >= kMaxDependencyTerms) return false;
    out->push_back(DepTerm{"singleton", 0, -1, 0});
    return true;
  }
  std::vector<std::string_view> parts = Split(group, ':');
  bool known = false;
  for (const char* k : kTypes) known = known || parts[0] == k;
  if (!known || parts.size() < 2) return false;
  if (out->size() + parts.size() - 1 > kMaxDependencyTerms) return false;
  for (size_t i = 1; i < parts.size(); ++i) {
    DepTerm t;
    t.type = std::string(parts[0]);
    if (!ParseTarget(parts[i], &t)) return false;
    out->push_back(t);
  }
  return true;
}

}  // namespace

Expected<DependencySpec> ParseDependency(std::string_view spec) {
  Status bad = InvalidArgument(kMsgDependency);
  DependencySpec out;
  bool has_comma = spec.find(',') != std::string_view::npos;
  out.any = spec.find('?') != std::string_view::npos;
  if (spec.empty() || (has_comma && out.any)) return bad;
  for (std::string_view group : Split(spec, out.any ? '?' : ',')) {
    if (!ParseGroup(group, &out.terms)) return bad;
  }
  return out;
}

std::string FormatDependencyTerm(const DepTerm& t) {
  if (t.type == "singleton") return t.type;
  std::string s = t.type + ":" + std::to_string(t.job_id);
  if (t.task_id >= 0) s += "_" + std::to_string(t.task_id);
  if (t.delay_min > 0) s += "+" + std::to_string(t.delay_min);
  return s;
}

}  // namespace sluice
