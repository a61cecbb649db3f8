// Memory / disk sizes as Slurm writes them (declared in slurm_format.h).
#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>

#include "common/slurm_format.h"

namespace sluice {
namespace {

Status BadSize(std::string_view s) {
  return InvalidArgument(fmt::format("Invalid memory size '{}'", s));
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "", "K", "KB", "kb", "g", "Tb", ... -> MiB multiplier (K: -1, rounds up); 0 = refused.
int64_t UnitMultiplier(std::string_view unit) {
  if (unit.empty()) return 1;
  if (unit.size() == 2 && unit[1] != 'B' && unit[1] != 'b') return 0;
  if (unit.size() > 2) return 0;
  switch (unit[0]) {
    case 'K':
    case 'k':
      return -1;
    case 'M':
    case 'm':
      return 1;
    case 'G':
    case 'g':
      return 1024;
    case 'T':
    case 't':
      return int64_t{1024} * 1024;
    default:
      return 0;
  }
}

}  // namespace

Expected<int64_t> ParseMemoryMb(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;  // as strtoll: leading blanks and a sign
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const size_t first_digit = i;
  int64_t n = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    const int d = s[i] - '0';
    if (n > (std::numeric_limits<int64_t>::max() - d) / 10) return BadSize(s);
    n = n * 10 + d;
  }
  if (i == first_digit || (negative && n != 0)) return BadSize(s);
  const int64_t mult = UnitMultiplier(s.substr(i));
  if (mult == 0) return BadSize(s);
  if (mult < 0) return n / 1024 + (n % 1024 != 0 ? 1 : 0);
  if (n > std::numeric_limits<int64_t>::max() / mult) return BadSize(s);
  return n * mult;
}

std::string FormatMemoryMb(int64_t mb) {
  static constexpr char kUnits[] = {'M', 'G', 'T', 'P', 'E'};
  double v = static_cast<double>(mb);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < sizeof(kUnits) && static_cast<uint64_t>(v) % 512 == 0) {
    v /= 1024;
    ++unit;
  }
  if (v != static_cast<double>(static_cast<int64_t>(v)))
    return fmt::format("{:.2f}{}", v, kUnits[unit]);
  return fmt::format("{}{}", static_cast<int64_t>(v), kUnits[unit]);
}

}  // namespace sluice
