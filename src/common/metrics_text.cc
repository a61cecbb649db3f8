#include "common/metrics_text.h"

#include <fmt/format.h>

#include <cmath>

namespace sluice {
namespace {

void AppendEscaped(std::string_view s, bool quote, std::string* out) {
  for (char c : s) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else if (c == '"' && quote) {
      *out += "\\\"";
    } else {
      *out += c;
    }
  }
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

}  // namespace

void MetricsText::Family(std::string_view name, std::string_view type, std::string_view help) {
  family_ = name;
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  AppendEscaped(help, false, &out_);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void MetricsText::Line(std::string_view name, const MetricLabels& labels,
                       std::string_view extra_key, std::string_view extra_value, double value) {
  out_ += name;
  if (!labels.empty() || !extra_key.empty()) {
    out_ += '{';
    bool first = true;
    auto label = [&](std::string_view k, std::string_view v) {
      if (!first) out_ += ',';
      first = false;
      out_ += k;
      out_ += "=\"";
      AppendEscaped(v, true, &out_);
      out_ += '"';
    };
    for (const auto& [k, v] : labels) label(k, v);
    if (!extra_key.empty()) label(extra_key, extra_value);
    out_ += '}';
  }
  out_ += ' ';
  out_ += Number(value);
  out_ += '\n';
}

void MetricsText::Add(const MetricLabels& labels, double value) {
  Line(family_, labels, "", "", value);
}

void MetricsText::Add(const MetricLabels& labels, const Histogram& h) {
  const std::string bucket = family_ + "_bucket";
  int64_t cumulative = 0;
  for (size_t i = 0; i < h.bounds().size(); ++i) {
    cumulative += h.counts()[i];
    Line(bucket, labels, "le", Number(h.bounds()[i]), static_cast<double>(cumulative));
  }
  Line(bucket, labels, "le", "+Inf", static_cast<double>(h.count()));
  Line(family_ + "_sum", labels, "", "", h.sum());
  Line(family_ + "_count", labels, "", "", static_cast<double>(h.count()));
}

bool WantsOpenMetrics(std::string_view accept_header) {
  return accept_header.find("application/openmetrics-text") != std::string_view::npos;
}

std::string ToOpenMetrics(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  std::string_view help;  // the HELP line waiting for its TYPE line
  auto flush_help = [&](std::string_view name_from, std::string_view name_to) {
    if (help.empty()) return;
    out += "# HELP ";
    out += name_to;
    out += help.substr(7 + name_from.size());
    out += '\n';
    help = {};
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.rfind("# HELP ", 0) == 0) {
      help = line;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::string_view rest = line.substr(7);
      std::string_view name = rest.substr(0, rest.find(' '));
      std::string_view type = rest.substr(name.size() + 1);
      bool counter = type == "counter" && name.size() > 6 && name.ends_with("_total");
      std::string_view base = counter ? name.substr(0, name.size() - 6) : name;
      flush_help(name, base);
      out += "# TYPE ";
      out += base;
      out += ' ';
      out += type;
      out += '\n';
      continue;
    }
    out += line;
    out += '\n';
  }
  out += "# EOF\n";
  return out;
}

}  // namespace sluice
