// MetricsText: Prometheus text exposition (format 0.0.4, what Prometheus and every
// OpenMetrics scraper read), built family by family:
//   MetricsText m;
//   m.Family("sluice_jobs", "gauge", "Jobs in memory by state and partition");
//   m.Add({{"state", "PENDING"}, {"partition", "gpu"}}, 12);
//   m.Family("sluice_rpc_duration_seconds", "histogram", "...");
//   m.Add({{"method", "SubmitJob"}}, histogram);  // _bucket{le=...}, _sum, _count
// Label values and help texts are escaped (backslash, double quote, newline); a family
// with no samples still states its HELP and TYPE, so a scraper sees the series exist.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/histogram.h"

namespace sluice {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class MetricsText {
 public:
  // `type`: "gauge", "counter" (name ends in _total) or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  // A sample of the current family.
  void Add(const MetricLabels& labels, double value);
  void Add(const MetricLabels& labels, const Histogram& h);
  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Line(std::string_view name, const MetricLabels& labels, std::string_view extra_key,
            std::string_view extra_value, double value);
  std::string family_;
  std::string out_;
};

// The Content-Type of that text.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// OpenMetrics 1.0, for scrapers that ask for it (Accept: application/openmetrics-text):
// the same samples; a counter family is named without its _total suffix in HELP/TYPE;
// the text ends with "# EOF".
inline constexpr char kOpenMetricsContentType[] =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
bool WantsOpenMetrics(std::string_view accept_header);
std::string ToOpenMetrics(std::string_view text);

}  // namespace sluice
