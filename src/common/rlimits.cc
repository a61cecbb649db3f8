#include "common/rlimits.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice {
namespace {

constexpr std::pair<const char*, int> kLimits[] = {
    {"AS", RLIMIT_AS},         {"CORE", RLIMIT_CORE},   {"CPU", RLIMIT_CPU},
    {"DATA", RLIMIT_DATA},     {"FSIZE", RLIMIT_FSIZE}, {"MEMLOCK", RLIMIT_MEMLOCK},
    {"NOFILE", RLIMIT_NOFILE}, {"NPROC", RLIMIT_NPROC}, {"RSS", RLIMIT_RSS},
    {"STACK", RLIMIT_STACK},
};

const char* NameOf(int resource) {
  for (const auto& [name, r] : kLimits) {
    if (r == resource) return name;
  }
  return "?";
}

}  // namespace

Expected<std::vector<int>> ParsePropagate(std::string_view spec) {
  std::vector<int> out;
  if (spec.empty() || spec == "ALL") {
    for (const auto& l : kLimits) out.push_back(l.second);
    return out;
  }
  if (spec == "NONE") return out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string_view item =
        spec.substr(start, comma == std::string_view::npos ? spec.npos : comma - start);
    if (item.rfind("RLIMIT_", 0) == 0) item.remove_prefix(7);
    bool known = false;
    for (const auto& [name, r] : kLimits) {
      if (item == name) {
        out.push_back(r);
        known = true;
      }
    }
    if (!known) return InvalidArgument("--propagate=" + std::string(spec) + " is invalid");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<ResourceLimitValue> CurrentLimits(const std::vector<int>& resources) {
  std::vector<ResourceLimitValue> out;
  for (int r : resources) {
    rlimit l{};
    if (::getrlimit(r, &l) == 0) out.push_back({r, static_cast<uint64_t>(l.rlim_cur)});
  }
  return out;
}

std::vector<std::string> ApplyLimits(const std::vector<ResourceLimitValue>& limits) {
  std::vector<std::string> failed;
  auto fail = [&](const ResourceLimitValue& v) {
    failed.push_back(
        std::string("Can't propagate RLIMIT_") + NameOf(v.resource) + " of " +
        (v.soft == static_cast<uint64_t>(RLIM_INFINITY) ? "unlimited" : std::to_string(v.soft)) +
        " from submit host: " + std::strerror(errno));
  };
  for (const ResourceLimitValue& v : limits) {
    rlimit l{};
    if (::getrlimit(v.resource, &l) != 0) continue;
    l.rlim_cur = static_cast<rlim_t>(v.soft);
    if (l.rlim_max != RLIM_INFINITY && (l.rlim_cur == RLIM_INFINITY || l.rlim_cur > l.rlim_max)) {
      rlimit raised{l.rlim_cur, l.rlim_cur};  // only root may raise the hard limit
      if (::setrlimit(v.resource, &raised) == 0) continue;
      fail(v);
      l.rlim_cur = l.rlim_max;
    }
    if (::setrlimit(v.resource, &l) != 0) fail(v);
  }
  return failed;
}

}  // namespace sluice
