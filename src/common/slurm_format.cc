// Gres specs, signals and per-node counts (declared in slurm_format.h).
#include "common/slurm_format.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <csignal>
#include <limits>

#include "common/text_util.h"

namespace sluice {
namespace {

Status BadGres(std::string_view s, std::string_view why) {
  return InvalidArgument(
      fmt::format("Invalid generic resource (gres) specification '{}': {}", s, why));
}

bool IsValidGresWord(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

bool LooksNumeric(std::string_view w) {
  return !w.empty() &&
         (std::isdigit(static_cast<unsigned char>(w[0])) || w[0] == '-' || w[0] == '+');
}

Status ParseCount(std::string_view w, std::string_view spec, bool allow_zero, int64_t* out) {
  if (!ParseNonNegative(w, out)) return BadGres(spec, fmt::format("bad count '{}'", w));
  if (*out == 0 && !allow_zero) return BadGres(spec, "count must be positive");
  return Status::Ok();
}

Expected<GresSpec> ParseOneGres(std::string_view item, std::string_view spec) {
  if (StartsWithIgnoreCase(item, "gres/")) item.remove_prefix(5);
  auto parts = Split(item, ':');
  if (parts.size() > 3) return BadGres(spec, "too many ':' fields");
  GresSpec g;
  g.name = std::string(parts[0]);
  if (!IsValidGresWord(g.name)) return BadGres(spec, "missing or bad name");
  if (parts.size() == 2 && LooksNumeric(parts[1])) {
    RETURN_IF_ERROR(ParseCount(parts[1], spec, false, &g.count));
    return g;
  }
  if (parts.size() >= 2) {
    if (!IsValidGresWord(parts[1])) return BadGres(spec, fmt::format("bad type '{}'", parts[1]));
    g.type = std::string(parts[1]);
  }
  if (parts.size() == 3) RETURN_IF_ERROR(ParseCount(parts[2], spec, false, &g.count));
  return g;
}

struct SignalEntry {
  int number;
  const char* name;
};

constexpr std::array<SignalEntry, 34> kSignals{{
    {SIGHUP, "HUP"},
    {SIGINT, "INT"},
    {SIGQUIT, "QUIT"},
    {SIGILL, "ILL"},
    {SIGTRAP, "TRAP"},
    {SIGABRT, "ABRT"},
    {SIGBUS, "BUS"},
    {SIGFPE, "FPE"},
    {SIGKILL, "KILL"},
    {SIGUSR1, "USR1"},
    {SIGSEGV, "SEGV"},
    {SIGUSR2, "USR2"},
    {SIGPIPE, "PIPE"},
    {SIGALRM, "ALRM"},
    {SIGTERM, "TERM"},
    {SIGSTKFLT, "STKFLT"},
    {SIGCHLD, "CHLD"},
    {SIGCONT, "CONT"},
    {SIGSTOP, "STOP"},
    {SIGTSTP, "TSTP"},
    {SIGTTIN, "TTIN"},
    {SIGTTOU, "TTOU"},
    {SIGURG, "URG"},
    {SIGXCPU, "XCPU"},
    {SIGXFSZ, "XFSZ"},
    {SIGVTALRM, "VTALRM"},
    {SIGPROF, "PROF"},
    {SIGWINCH, "WINCH"},
    {SIGIO, "IO"},
    {SIGPWR, "PWR"},
    {SIGSYS, "SYS"},
    // Aliases after the canonical names (SignalName returns the first match).
    {SIGIO, "POLL"},
    {SIGABRT, "IOT"},
    {SIGCHLD, "CLD"},
}};

constexpr int kMaxSignal = 64;

}  // namespace

std::string FormatRepeatedCounts(const std::vector<int64_t>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i + 1;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (j - i > 1) out += fmt::format("(x{})", j - i);
    i = j;
  }
  return out;
}

Expected<std::vector<GresSpec>> ParseGres(std::string_view s) {
  std::vector<GresSpec> out;
  std::string_view t = Trim(s);
  if (t.empty()) return out;
  for (std::string_view item : Split(t, ',')) {
    ASSIGN_OR_RETURN(GresSpec g, ParseOneGres(Trim(item), s));
    out.push_back(std::move(g));
  }
  return out;
}

Expected<GresSpec> ParseGpuCount(std::string_view s) {
  std::string_view t = Trim(s);
  auto parts = Split(t, ':');
  if (parts.size() > 1 && EqualsIgnoreCase(parts[0], "gpu")) parts.erase(parts.begin());
  if (parts.size() > 2) return BadGres(s, "expected [type:]count");
  GresSpec g{"gpu", "", 0};
  if (parts.size() == 2) {
    if (!IsValidGresWord(parts[0])) return BadGres(s, fmt::format("bad type '{}'", parts[0]));
    g.type = std::string(parts[0]);
  }
  RETURN_IF_ERROR(ParseCount(parts.back(), s, true, &g.count));
  return g;
}

Expected<int> ParseSignal(std::string_view s) {
  std::string_view t = Trim(s);
  int64_t n = 0;
  if (ParseNonNegative(t, &n)) {
    if (n >= 1 && n <= kMaxSignal) return static_cast<int>(n);
  } else {
    std::string_view name = StartsWithIgnoreCase(t, "SIG") ? t.substr(3) : t;
    for (const auto& e : kSignals) {
      if (EqualsIgnoreCase(name, e.name)) return e.number;
    }
  }
  return InvalidArgument(fmt::format("Invalid signal '{}'", s));
}

std::string SignalName(int sig) {
  for (const auto& e : kSignals) {
    if (e.number == sig) return e.name;
  }
  return std::to_string(sig);
}

}  // namespace sluice
