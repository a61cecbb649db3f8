// Parsing of scontrol's reservation words. See reservation_spec.h.
#include "ctld/components/reservation_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice::ctld {
namespace {

constexpr const char* kFlagOrder[] = {"MAINT",
                                      "NO_MAINT",
                                      "FLEX",
                                      "OVERLAP",
                                      "IGNORE_JOBS",
                                      "HOURLY",
                                      "DAILY",
                                      "WEEKDAY",
                                      "WEEKEND",
                                      "WEEKLY",
                                      "STATIC_ALLOC",
                                      "PART_NODES",
                                      "PURGE_COMP",
                                      "ANY_NODES",
                                      "FIRST_CORES",
                                      "TIME_FLOAT",
                                      "REPLACE",
                                      "REPLACE_DOWN",
                                      "NO_HOLD_JOBS_AFTER",
                                      "SPEC_NODES",
                                      "ALL_NODES",
                                      "MAGNETIC"};

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::vector<std::string> SplitComma(std::string_view v) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= v.size()) {
    size_t comma = v.find(',', from);
    if (comma == std::string_view::npos) comma = v.size();
    if (comma > from) out.emplace_back(v.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c); });
}

// Digits only, at most `max` (no exception, no overflow for a thousand digits).
bool ParseBounded(std::string_view s, int64_t max, int64_t* out) {
  if (!AllDigits(s)) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out <= max;
}

// Bounds on reservation numbers: a count of CPUs, GPUs or nodes, and a relative time
// (now+N units stays within ~30 years, so `now + n * unit` cannot overflow).
constexpr int64_t kMaxResvCount = 1000000000;
constexpr int64_t kMaxResvOffsetS = int64_t{1} << 30;

int64_t LocalTime(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&tm));
}

std::tm LocalTm(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  localtime_r(&tt, &tm);
  return tm;
}

Expected<std::vector<std::string>> ParseFlags(std::string_view v) {
  std::vector<std::string> out;
  for (std::string f : SplitComma(v)) {
    f = Upper(f);
    if (!IsResvFlag(f)) return InvalidArgument("Invalid flag: " + f);
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

Status ParseTres(std::string_view v, ResvEdit* e) {
  for (const std::string& item : SplitComma(v)) {
    std::string key = Upper(item);
    size_t sep = key.find_first_of("=:", key.rfind('/') == std::string::npos ? 0 : key.rfind('/'));
    if (sep == std::string::npos) return InvalidArgument("Invalid TRES value: " + std::string(v));
    std::string name = key.substr(0, sep), count = key.substr(sep + 1);
    int64_t n = 0;
    if (!ParseBounded(count, kMaxResvCount, &n)) {
      return InvalidArgument("Invalid TRES value: " + std::string(v));
    }
    if (name == "CPU") {
      e->tres_cpus = n;
    } else if (name == "GRES/GPU") {
      e->tres_gpus = n;
    } else if (name == "NODE") {
      e->node_cnt = static_cast<int>(n);
    } else {
      return InvalidArgument("Invalid TRES value: " + std::string(v));
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsResvFlag(const std::string& flag) {
  return std::any_of(std::begin(kFlagOrder), std::end(kFlagOrder),
                     [&](const char* f) { return flag == f; });
}

std::vector<std::string> SortResvFlags(std::vector<std::string> flags) {
  auto rank = [](const std::string& f) {
    return std::find_if(std::begin(kFlagOrder), std::end(kFlagOrder),
                        [&](const char* x) { return f == x; }) -
           std::begin(kFlagOrder);
  };
  std::sort(flags.begin(), flags.end(),
            [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
  return flags;
}

Expected<int64_t> ParseResvTime(std::string_view s, int64_t now) {
  const std::string u = Upper(std::string(s));
  const Status bad = InvalidArgument("Invalid time specification: " + std::string(s));
  if (u == "NOW") return now;
  if (u.rfind("NOW+", 0) == 0) {
    std::string rest = u.substr(4);
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    int64_t n = 0;
    if (digits == 0 ||
        !ParseBounded(std::string_view(rest).substr(0, digits), kMaxResvOffsetS, &n)) {
      return bad;
    }
    const std::string unit = rest.substr(digits);
    int64_t mult = 0;
    if (unit.empty() || std::string("SECONDS").rfind(unit, 0) == 0)
      mult = 1;
    else if (unit == "M" || std::string("MINUTES").rfind(unit, 0) == 0)
      mult = 60;
    else if (std::string("HOURS").rfind(unit, 0) == 0)
      mult = 3600;
    else if (std::string("DAYS").rfind(unit, 0) == 0)
      mult = 86400;
    else if (std::string("WEEKS").rfind(unit, 0) == 0)
      mult = 7 * 86400;
    if (mult == 0 || n > kMaxResvOffsetS / mult) return bad;
    return now + n * mult;
  }
  const std::tm today = LocalTm(now);
  if (u == "TODAY" || u == "MIDNIGHT" || u == "TOMORROW") {
    const int64_t midnight =
        LocalTime(today.tm_year + 1900, today.tm_mon + 1, today.tm_mday, 0, 0, 0);
    if (u == "TODAY") return midnight;
    return LocalTime(today.tm_year + 1900, today.tm_mon + 1, today.tm_mday + 1, 0, 0, 0);
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  char tail = 0;
  if (u.find('-') != std::string::npos) {
    int n = std::sscanf(u.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &sec, &tail);
    if (n < 3 || n == 4 || n == 7 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        sec > 59)
      return bad;
    if (n == 3 && u.size() != 10) return bad;
    return LocalTime(y, mo, d, h, mi, sec);
  }
  int n = std::sscanf(u.c_str(), "%2d:%2d:%2d%c", &h, &mi, &sec, &tail);
  if (n < 2 || n == 4 || h > 23 || mi > 59 || sec > 59) return bad;
  int64_t t = LocalTime(today.tm_year + 1900, today.tm_mon + 1, today.tm_mday, h, mi, sec);
  if (t < now) t = LocalTime(today.tm_year + 1900, today.tm_mon + 1, today.tm_mday + 1, h, mi, sec);
  return t;
}

Expected<ResvEdit> ParseReservationArgs(const std::vector<std::string>& args, int64_t now) {
  ResvEdit e;
  for (const std::string& arg : args) {
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("Invalid input: " + arg + "\nRequest aborted");
    std::string key = Upper(arg.substr(0, eq));
    std::string v = arg.substr(eq + 1);
    char op = 0;
    if (key.back() == '+' || key.back() == '-') {
      op = key.back();
      key.pop_back();
    }
    if (op && key != "FLAGS") return InvalidArgument("Invalid input: " + arg + "\nRequest aborted");
    if (key == "RESERVATIONNAME" || key == "RESERVATION" || key == "RESVNAME") {
      if (v.empty()) return InvalidArgument("Invalid reservation name");
      e.name = v;
    } else if (key == "STARTTIME") {
      Expected<int64_t> t = ParseResvTime(v, now);
      if (!t.ok()) return InvalidArgument("Invalid StartTime value: " + v);
      e.start = *t;
    } else if (key == "ENDTIME") {
      Expected<int64_t> t = ParseResvTime(v, now);
      if (!t.ok()) return InvalidArgument("Invalid EndTime value: " + v);
      e.end = *t;
    } else if (key == "DURATION") {
      Expected<int64_t> m = ParseTimeLimitMinutes(v);
      if (!m.ok()) return InvalidArgument("Invalid duration: " + v);
      e.duration_s = *m == kUnlimited ? kResvUnlimitedS : *m * 60;
    } else if (key == "NODES" || key == "NODELIST") {
      e.nodes = Upper(v) == "ALL" ? "ALL" : v;
    } else if (key == "NODECNT" || key == "NODECOUNT") {
      int64_t n = 0;
      if (!ParseBounded(v, 1000000, &n) || n <= 0)
        return InvalidArgument("Invalid node count " + v);
      e.node_cnt = static_cast<int>(n);
    } else if (key == "TRES") {
      RETURN_IF_ERROR(ParseTres(v, &e));
    } else if (key == "USERS" || key == "USER") {
      e.users_denied = !v.empty() && v[0] == '-';
      e.users = SplitComma(e.users_denied ? v.substr(1) : v);
    } else if (key == "ACCOUNTS" || key == "ACCOUNT") {
      e.accounts_denied = !v.empty() && v[0] == '-';
      e.accounts = SplitComma(e.accounts_denied ? v.substr(1) : v);
    } else if (key == "PARTITIONNAME" || key == "PARTITION") {
      e.partition = v;
    } else if (key == "FLAGS") {
      ASSIGN_OR_RETURN(std::vector<std::string> flags, ParseFlags(v));
      if (op == '+')
        e.flags_add = flags;
      else if (op == '-')
        e.flags_remove = flags;
      else
        e.flags = flags;
    } else {
      return InvalidArgument("Invalid input: " + arg + "\nRequest aborted");
    }
  }
  return e;
}

}  // namespace sluice::ctld
