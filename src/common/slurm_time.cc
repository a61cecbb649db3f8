// Time limits, durations and timestamps (declared in slurm_format.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

constexpr size_t kMaxFieldDigits = 9;

Status BadTime(std::string_view s) {
  return InvalidArgument(fmt::format("Invalid time limit '{}'", s));
}

// Splits "a:b:c" into 1..3 numeric fields.
bool ParseColonFields(std::string_view s, std::vector<int64_t>* out) {
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    std::string_view f = s.substr(start, colon - start);
    if (f.empty() || f.size() > kMaxFieldDigits || !IsAllDigits(f)) return false;
    out->push_back(std::stoll(std::string(f)));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return out->size() <= 3;
}

}  // namespace

Expected<int64_t> ParseTimeLimitMinutes(std::string_view s) {
  std::string_view t = Trim(s);
  if (EqualsIgnoreCase(t, "UNLIMITED") || EqualsIgnoreCase(t, "INFINITE") || t == "-1") {
    return kUnlimited;
  }
  int64_t days = 0;
  size_t dash = t.find('-');
  if (dash != std::string_view::npos) {
    std::string_view d = t.substr(0, dash);
    if (d.empty() || d.size() > kMaxFieldDigits || !IsAllDigits(d)) return BadTime(s);
    days = std::stoll(std::string(d));
    t = t.substr(dash + 1);
  }
  std::vector<int64_t> f;
  if (!ParseColonFields(t, &f)) return BadTime(s);
  int64_t secs = 0;
  if (dash != std::string_view::npos) {  // D-HH[:MM[:SS]]
    secs = f[0] * 3600 + (f.size() > 1 ? f[1] * 60 : 0) + (f.size() > 2 ? f[2] : 0);
  } else if (f.size() == 1) {  // minutes
    secs = f[0] * 60;
  } else if (f.size() == 2) {  // MM:SS
    secs = f[0] * 60 + f[1];
  } else {  // HH:MM:SS
    secs = f[0] * 3600 + f[1] * 60 + f[2];
  }
  secs += days * 86400;
  return (secs + 59) / 60;
}

std::string FormatDuration(int64_t seconds) {
  if (seconds < 0) return "INVALID";
  int64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  if (d > 0) return fmt::format("{}-{:02d}:{:02d}:{:02d}", d, h, m, s);
  if (h > 0) return fmt::format("{}:{:02d}:{:02d}", h, m, s);
  return fmt::format("{}:{:02d}", m, s);
}

std::string FormatLimitMinutes(int64_t minutes) {
  if (minutes < 0) return "UNLIMITED";
  return FormatDuration(minutes * 60);
}

std::string FormatHms(int64_t seconds) {
  if (seconds < 0) return "INVALID";
  int64_t d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  if (d > 0) return fmt::format("{}-{:02d}:{:02d}:{:02d}", d, h, m, s);
  return fmt::format("{:02d}:{:02d}:{:02d}", h, m, s);
}

std::string FormatHmsLimit(int64_t minutes) {
  if (minutes < 0) return "UNLIMITED";
  return FormatHms(minutes * 60);
}

std::string FormatSinfoLimit(int64_t minutes) {
  if (minutes < 0) return "infinite";
  return FormatDuration(minutes * 60);
}

std::string FormatTimestamp(int64_t unix_s) {
  if (unix_s <= 0) return "Unknown";
  time_t t = static_cast<time_t>(unix_s);
  struct tm tm;
  if (localtime_r(&t, &tm) == nullptr) return "Unknown";
  char buf[32];
  size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf, n);
}

}  // namespace sluice
