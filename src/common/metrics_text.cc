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

}  // namespace sluice
