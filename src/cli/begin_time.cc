#include "cli/begin_time.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "cli/sacct.h"

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
