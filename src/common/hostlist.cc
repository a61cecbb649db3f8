#include "common/hostlist.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace sluice {
namespace {

constexpr size_t kMaxDigits = 18;  // fits in int64_t

bool IsDigits(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

int64_t ToInt(std::string_view digits) {
  int64_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

int DigitCount(int64_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

std::string Pad(int64_t n, int width) { return fmt::format("{:0{}d}", n, width); }

// ---------------------------------------------------------------- expansion

// One "lo" or "lo-hi" inside brackets; width is the length of lo as written.
struct NumRange {
  int64_t lo = 0;
  int64_t hi = 0;
  int width = 1;
  int64_t size() const { return hi - lo + 1; }
};

// A host pattern is literal text interleaved with bracket groups.
struct Piece {
  std::string text;              // literal, when ranges is empty
  std::vector<NumRange> ranges;  // bracket group otherwise
};

Status HostlistError(std::string_view expr, std::string_view why) {
  return InvalidArgument(fmt::format("Invalid hostlist '{}': {}", expr, why));
}

Expected<NumRange> ParseOneRange(std::string_view r, std::string_view expr) {
  if (r.empty()) return HostlistError(expr, "empty range in brackets");
  size_t dash = r.find('-');
  std::string_view lo = r.substr(0, dash);
  std::string_view hi = dash == std::string_view::npos ? lo : r.substr(dash + 1);
  if (!IsDigits(lo) || !IsDigits(hi)) {
    return HostlistError(expr, fmt::format("'{}' is not a number or number range", r));
  }
  if (lo.size() > kMaxDigits || hi.size() > kMaxDigits) {
    return HostlistError(expr, fmt::format("number too large in '{}'", r));
  }
  NumRange out{ToInt(lo), ToInt(hi), static_cast<int>(lo.size())};
  if (out.hi < out.lo) {
    return HostlistError(expr, fmt::format("range '{}' ends before it starts", r));
  }
  if (out.size() > static_cast<int64_t>(kMaxHostlistSize)) {
    return HostlistError(expr,
                         fmt::format("range '{}' has more than {} names", r, kMaxHostlistSize));
  }
  return out;
}

Expected<std::vector<NumRange>> ParseGroup(std::string_view inner, std::string_view expr) {
  std::vector<NumRange> out;
  size_t start = 0;
  while (true) {
    size_t comma = inner.find(',', start);
    std::string_view part = inner.substr(start, comma - start);
    ASSIGN_OR_RETURN(NumRange r, ParseOneRange(part, expr));
    out.push_back(r);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Splits one host pattern ("rack[1-2]-n[01-04]") into pieces.
Expected<std::vector<Piece>> ParsePattern(std::string_view tok, std::string_view expr) {
  std::vector<Piece> pieces;
  size_t i = 0;
  while (i < tok.size()) {
    size_t open = tok.find('[', i);
    if (open != i) {
      std::string_view lit = tok.substr(i, open - i);
      if (lit.find(']') != std::string_view::npos) return HostlistError(expr, "unmatched ']'");
      pieces.push_back(Piece{std::string(lit), {}});
      if (open == std::string_view::npos) break;
    }
    size_t close = tok.find(']', open);
    if (close == std::string_view::npos) return HostlistError(expr, "missing ']'");
    ASSIGN_OR_RETURN(auto ranges, ParseGroup(tok.substr(open + 1, close - open - 1), expr));
    pieces.push_back(Piece{"", std::move(ranges)});
    i = close + 1;
  }
  return pieces;
}

// Splits at commas and whitespace outside brackets; rejects nested/unbalanced brackets.
Expected<std::vector<std::string_view>> SplitTopLevel(std::string_view expr) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    char c = i < expr.size() ? expr[i] : ',';
    if (c == '[') {
      if (++depth > 1) return HostlistError(expr, "nested '['");
    } else if (c == ']') {
      if (--depth < 0) return HostlistError(expr, "unmatched ']'");
    } else if (depth == 0 && (c == ',' || std::isspace(static_cast<unsigned char>(c)))) {
      if (i > start) out.push_back(expr.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return HostlistError(expr, "missing ']'");
  return out;
}

// Appends the cartesian product of `pieces` to `out` (first group varies slowest).
void ExpandPieces(const std::vector<Piece>& pieces, std::vector<std::string>* out) {
  std::vector<std::string> cur{""};
  for (const Piece& p : pieces) {
    if (p.ranges.empty()) {
      for (auto& s : cur) s += p.text;
      continue;
    }
    std::vector<std::string> next;
    for (const auto& s : cur) {
      for (const NumRange& r : p.ranges) {
        for (int64_t n = r.lo; n <= r.hi; ++n) next.push_back(s + Pad(n, r.width));
      }
    }
    cur = std::move(next);
  }
  out->insert(out->end(), std::make_move_iterator(cur.begin()), std::make_move_iterator(cur.end()));
}

int64_t PatternSize(const std::vector<Piece>& pieces) {
  int64_t total = 1;
  for (const Piece& p : pieces) {
    if (p.ranges.empty()) continue;
    int64_t group = 0;  // clamped, so neither the sum nor the product overflows
    for (const NumRange& r : p.ranges) {
      group = std::min<int64_t>(group + r.size(), kMaxHostlistSize + 1);
    }
    total *= group;
    if (total > static_cast<int64_t>(kMaxHostlistSize)) return total;
  }
  return total;
}

// The longest name the pattern expands to (a range's numbers are at least `width` wide).
int64_t NameBytes(const std::vector<Piece>& pieces) {
  int64_t bytes = 0;
  for (const Piece& p : pieces) {
    int64_t widest = static_cast<int64_t>(p.text.size());
    for (const NumRange& r : p.ranges)
      widest = std::max<int64_t>(widest, std::max(r.width, DigitCount(r.hi)));
    bytes += widest;
  }
  return bytes;
}

// ---------------------------------------------------------------- compression

// A run of hosts prefix<lo..hi>, printed zero-padded to width; `numbered` false for
// names without a numeric suffix (printed as prefix alone).
struct HostRange {
  std::string prefix;
  int64_t lo = 0;
  int64_t hi = 0;
  int width = 0;
  bool numbered = false;
};

HostRange SplitHost(const std::string& host) {
  size_t end = host.size();
  size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(host[start - 1]))) --start;
  size_t digits = end - start;
  if (digits == 0 || digits > kMaxDigits) return HostRange{host, 0, 0, 0, false};
  int64_t n = ToInt(std::string_view(host).substr(start));
  return HostRange{host.substr(0, start), n, n, static_cast<int>(digits), true};
}

// True if every number of a range starting at `lo` written with width `own` reads the
// same when written with width `w`.
bool SameTextAtWidth(int64_t lo, int own, int w) {
  int d = DigitCount(lo);
  return own == w || d >= std::max(own, w);
}

// Width under which `a` and `b` can share one range without changing any name, or -1.
int CombinedWidth(const HostRange& a, const HostRange& b) {
  if (SameTextAtWidth(b.lo, b.width, a.width)) return a.width;
  if (SameTextAtWidth(a.lo, a.width, b.width)) return b.width;
  return -1;
}

// Appends `h` to `ranges`, extending the last range when h continues it.
void PushHost(const HostRange& h, std::vector<HostRange>* ranges) {
  if (!ranges->empty() && h.numbered) {
    HostRange& last = ranges->back();
    if (last.numbered && last.prefix == h.prefix && last.hi + 1 == h.lo) {
      int w = CombinedWidth(last, h);
      if (w >= 0) {
        last.hi = h.hi;
        last.width = w;
        return;
      }
    }
  }
  ranges->push_back(h);
}

std::string RangeText(const HostRange& r) {
  if (r.lo == r.hi) return Pad(r.lo, r.width);
  return Pad(r.lo, r.width) + "-" + Pad(r.hi, r.width);
}

// Consecutive numbered ranges with one prefix print as prefix[r1,r2,...].
std::string RangesToString(const std::vector<HostRange>& ranges) {
  std::string out;
  for (size_t i = 0; i < ranges.size();) {
    if (!out.empty()) out += ',';
    const HostRange& first = ranges[i];
    if (!first.numbered) {
      out += first.prefix;
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < ranges.size() && ranges[j].numbered && ranges[j].prefix == first.prefix) ++j;
    out += first.prefix;
    if (j == i + 1 && first.lo == first.hi) {
      out += Pad(first.lo, first.width);
    } else {
      out += '[';
      for (size_t k = i; k < j; ++k) out += (k > i ? "," : "") + RangeText(ranges[k]);
      out += ']';
    }
    i = j;
  }
  return out;
}

}  // namespace

// Natural order: digit runs compare by value ("n2" < "n10"), other chars bytewise.
int NaturalCompare(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size() ? -1 : 1;
      if (int c = na.compare(nb)) return c < 0 ? -1 : 1;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j])
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i == a.size() && j == b.size()) return 0;
  return i == a.size() ? -1 : 1;
}

namespace {

// The parsed patterns of `expr` and how many names they expand to (at most `max_names`).
Expected<std::vector<std::vector<Piece>>> ParsePatterns(std::string_view expr, size_t max_names,
                                                        int64_t* total) {
  ASSIGN_OR_RETURN(auto tokens, SplitTopLevel(expr));
  std::vector<std::vector<Piece>> patterns;
  *total = 0;
  int64_t bytes = 0;
  for (std::string_view tok : tokens) {
    ASSIGN_OR_RETURN(auto pieces, ParsePattern(tok, expr));
    const int64_t count = PatternSize(pieces);
    *total += count;
    if (*total > static_cast<int64_t>(max_names)) {
      return HostlistError(expr, fmt::format("more than {} names", max_names));
    }
    bytes += count * NameBytes(pieces);  // count <= max_names: no overflow
    if (bytes > static_cast<int64_t>(kMaxHostlistBytes)) {
      return HostlistError(expr, fmt::format("more than {} bytes of names", kMaxHostlistBytes));
    }
    patterns.push_back(std::move(pieces));
  }
  return patterns;
}

}  // namespace

Expected<size_t> CountHostlist(std::string_view expr, size_t max_names) {
  int64_t total = 0;
  ASSIGN_OR_RETURN(auto patterns,
                   ParsePatterns(expr, std::min(max_names, kMaxHostlistSize), &total));
  return static_cast<size_t>(total);
}

Expected<std::vector<std::string>> ExpandHostlist(std::string_view expr, size_t max_names) {
  int64_t total = 0;
  ASSIGN_OR_RETURN(auto patterns,
                   ParsePatterns(expr, std::min(max_names, kMaxHostlistSize), &total));
  std::vector<std::string> out;
  out.reserve(total);
  for (const auto& pieces : patterns) ExpandPieces(pieces, &out);
  return out;
}

std::string CompressHostlist(const std::vector<std::string>& hosts) {
  std::vector<HostRange> ranges;
  for (const auto& h : hosts) PushHost(SplitHost(h), &ranges);
  return RangesToString(ranges);
}

std::string CompressHostlistSorted(std::vector<std::string> hosts) {
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  std::vector<HostRange> parts;
  parts.reserve(hosts.size());
  for (const auto& h : hosts) parts.push_back(SplitHost(h));
  std::stable_sort(parts.begin(), parts.end(), [](const HostRange& a, const HostRange& b) {
    if (int c = NaturalCompare(a.prefix, b.prefix)) return c < 0;
    if (a.numbered != b.numbered) return !a.numbered;
    if (a.lo != b.lo) return a.lo < b.lo;
    return a.width < b.width;
  });
  std::vector<HostRange> ranges;
  for (const auto& p : parts) PushHost(p, &ranges);
  return RangesToString(ranges);
}

}  // namespace sluice
