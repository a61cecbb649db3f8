#include "cli/format_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace sluice {
namespace {

void AddLiteral(std::vector<FormatField>* out, std::string_view text) {
  if (text.empty()) return;
  if (!out->empty() && out->back().key.empty()) {
    out->back().literal += text;
  } else {
    out->push_back({std::string(text), "", 0, false});
  }
}

// Parses "[.|-]digits" at fmt[*i]; returns the width (0 if none).
int ParseWidth(std::string_view fmt, size_t* i, bool* right) {
  if (*i < fmt.size() && (fmt[*i] == '.' || fmt[*i] == '-')) {
    *right = fmt[*i] == '.';
    ++*i;
  }
  int width = 0;
  while (*i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[*i])))
    width = std::min(width * 10 + (fmt[(*i)++] - '0'), kMaxFieldWidth);
  return width;
}

// Refuses a format whose fields and literals add up to more than kMaxLineWidth per line.
Expected<std::vector<FormatField>> Bounded(std::vector<FormatField> fields, std::string_view spec) {
  size_t total = 0;
  for (const FormatField& f : fields) total += f.literal.size() + static_cast<size_t>(f.width);
  if (total > kMaxLineWidth) {
    return InvalidArgument(fmt::format("Invalid format specification: {} (lines wider than {})",
                                       spec.substr(0, 64), kMaxLineWidth));
  }
  return fields;
}

}  // namespace

Expected<std::vector<FormatField>> ParsePercentFormat(std::string_view fmt) {
  std::vector<FormatField> out;
  size_t i = 0;
  while (i < fmt.size()) {
    size_t pct = fmt.find('%', i);
    if (pct == std::string_view::npos) {
      AddLiteral(&out, fmt.substr(i));
      break;
    }
    AddLiteral(&out, fmt.substr(i, pct - i));
    i = pct + 1;
    if (i < fmt.size() && fmt[i] == '%') {
      AddLiteral(&out, "%");
      ++i;
      continue;
    }
    FormatField f;
    if (i < fmt.size() && fmt[i] == '#') {
      f.auto_width = true;
      ++i;
    }
    f.width = ParseWidth(fmt, &i, &f.right);
    if (i >= fmt.size())
      return InvalidArgument("Invalid format specification: " + std::string(fmt));
    f.key = std::string(1, fmt[i++]);
    out.push_back(std::move(f));
  }
  return Bounded(std::move(out), fmt);
}

Expected<std::vector<FormatField>> ParseNamedFormat(std::string_view fmt, int default_width) {
  std::vector<FormatField> out;
  size_t i = 0;
  while (i <= fmt.size()) {
    size_t comma = fmt.find(',', i);
    if (comma == std::string_view::npos) comma = fmt.size();
    std::string_view item = fmt.substr(i, comma - i);
    i = comma + 1;
    if (item.empty()) continue;
    FormatField f;
    size_t colon = item.find(':');
    std::string name(item.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    f.key = name;
    f.width = default_width;
    if (colon != std::string_view::npos) {
      std::string_view spec = item.substr(colon + 1);
      size_t j = 0;
      int w = ParseWidth(spec, &j, &f.right);
      if (j != spec.size())
        return InvalidArgument("Invalid format specification: " + std::string(item));
      if (w > 0) f.width = w;
    }
    out.push_back(std::move(f));
  }
  if (out.empty()) return InvalidArgument("Invalid format specification: " + std::string(fmt));
  return Bounded(std::move(out), fmt);
}

std::string Justify(std::string_view value, int width, bool right) {
  if (width <= 0) return std::string(value);
  std::string v(value.substr(0, static_cast<size_t>(width)));
  std::string pad(static_cast<size_t>(width) - v.size(), ' ');
  return right ? pad + v : v + pad;
}

std::string RenderLine(const std::vector<FormatField>& fields, const CellFn& cell) {
  std::string line;
  for (const FormatField& f : fields) {
    if (f.key.empty()) {
      line += f.literal;
    } else {
      line += Justify(cell(f), f.width, f.right);
    }
  }
  return line;
}

}  // namespace sluice
