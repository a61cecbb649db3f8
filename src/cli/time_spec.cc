#include "cli/time_spec.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "common/text_util.h"

namespace sluice {
namespace {

// `now`'s local date, `days` later, at hh:mm:ss.
int64_t LocalAt(int64_t now, int days, int hh, int mm, int ss) {
  time_t t = now;
  struct tm tm;
  localtime_r(&t, &tm);
  tm.tm_mday += days;
  tm.tm_hour = hh;
  tm.tm_min = mm;
  tm.tm_sec = ss;
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm));
}

}  // namespace

int64_t LocalMidnight(int64_t now) {
  time_t t = now;
  struct tm tm;
  localtime_r(&t, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return mktime(&tm);
}

// now[+-]N[unit]: at most 9 digits; epoch seconds: at most 11 (the year 5138).
constexpr size_t kMaxOffsetDigits = 9;
constexpr size_t kMaxEpochDigits = 11;

Expected<int64_t> ParseSacctTime(const std::string& in, int64_t now) {
  auto bad = [&]() {
    return InvalidArgument(fmt::format("Invalid time specification (pos=0): {}", in));
  };
  std::string s = ToLower(in);
  if (s.empty()) return bad();
  // YYYY-MM-DD-HH:MM[:SS] (torchx's -S1970-01-01-00:00:01) is YYYY-MM-DDTHH:MM[:SS].
  if (s.size() > 10 && s[4] == '-' && s[7] == '-' && s[10] == '-') s[10] = 't';
  if (s == "now") return now;
  if (s == "today" || s == "midnight") return LocalMidnight(now);
  if (s.rfind("now", 0) == 0 && (s[3] == '-' || s[3] == '+')) {
    size_t i = 4;
    int64_t n = 0;
    while (i < s.size() && i <= 4 + kMaxOffsetDigits &&
           std::isdigit(static_cast<unsigned char>(s[i]))) {
      n = n * 10 + (s[i++] - '0');
    }
    if (i == 4 || i > 4 + kMaxOffsetDigits) return bad();  // n * weeks stays far from overflow
    std::string unit = s.substr(i);
    int64_t mult = 1;
    if (unit.empty() || unit == "s" || unit == "sec" || unit == "seconds")
      mult = 1;
    else if (unit == "m" || unit == "min" || unit == "minutes")
      mult = 60;
    else if (unit == "h" || unit == "hour" || unit == "hours")
      mult = 3600;
    else if (unit == "d" || unit == "day" || unit == "days")
      mult = 86400;
    else if (unit == "w" || unit == "week" || unit == "weeks")
      mult = 7 * 86400;
    else
      return bad();
    return s[3] == '-' ? now - n * mult : now + n * mult;
  }
  bool digits = s.find_first_not_of("0123456789") == std::string::npos;
  if (digits && s.size() > 8) {  // epoch seconds
    if (s.size() > kMaxEpochDigits) return bad();
    return std::stoll(s);
  }
  time_t t = now;
  struct tm tm;
  localtime_r(&t, &tm);
  tm.tm_isdst = -1;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char extra = 0;
  int n;
  if ((n = std::sscanf(s.c_str(), "%4d-%2d-%2dt%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se,
                       &extra)) >= 3 &&
      s.size() >= 10 && s[4] == '-') {
    if (n == 7 || (n == 4) || (n >= 3 && s.size() > 10 && n < 5)) return bad();
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = n >= 5 ? h : 0;
    tm.tm_min = n >= 5 ? mi : 0;
    tm.tm_sec = n >= 6 ? se : 0;
  } else if (s.find(':') != std::string::npos) {
    n = std::sscanf(s.c_str(), "%2d:%2d:%2d%c", &h, &mi, &se, &extra);
    if (n < 2 || n == 4 || h > 23 || mi > 59 || se > 59) return bad();
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = n >= 3 ? se : 0;
  } else if (s.find('/') != std::string::npos) {
    n = std::sscanf(s.c_str(), "%2d/%2d/%4d%c", &mo, &d, &y, &extra);
    if (n < 2 || n == 4) return bad();
    if (n == 3) tm.tm_year = (y < 100 ? y + 2000 : y) - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  } else if (digits && (s.size() == 4 || s.size() == 6)) {  // MMDD[YY]
    tm.tm_mon = std::stoi(s.substr(0, 2)) - 1;
    tm.tm_mday = std::stoi(s.substr(2, 2));
    if (s.size() == 6) tm.tm_year = 100 + std::stoi(s.substr(4, 2));
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  } else {
    return bad();
  }
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return bad();
  time_t r = mktime(&tm);
  if (r == -1) return bad();
  return static_cast<int64_t>(r);
}

Expected<int64_t> ParseBeginTime(const std::string& spec, int64_t now) {
  std::string s = spec;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, int> kWords[] = {
      {"midnight", 0}, {"elevenses", 11}, {"noon", 12}, {"fika", 15}, {"teatime", 16}};
  for (const auto& [word, hour] : kWords) {
    if (s != word) continue;
    int64_t today = LocalAt(now, 0, hour, 0, 0);
    return today > now ? today : LocalAt(now, 1, hour, 0, 0);
  }
  if (s == "tomorrow") return LocalAt(now, 1, 0, 0, 0);
  ASSIGN_OR_RETURN(int64_t t, ParseSacctTime(spec, now));
  bool time_of_day = s.find(':') != std::string::npos && s.find('-') == std::string::npos &&
                     s.find('/') == std::string::npos;
  if (time_of_day && t <= now) t += 86400;  // already past today: tomorrow
  return t;
}

}  // namespace sluice
