#include "common/metrics_text.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(MetricsText, GaugesWithEscapedLabels) {
  MetricsText m;
  m.Family("sluice_jobs", "gauge", "Jobs by state\nand partition \\ here");
  m.Add({{"state", "PENDING"}, {"partition", "a\"b\\c\nd"}}, 3);
  m.Add({}, 0.25);
  EXPECT_EQ(m.text(),
            "# HELP sluice_jobs Jobs by state\\nand partition \\\\ here\n"
            "# TYPE sluice_jobs gauge\n"
            "sluice_jobs{state=\"PENDING\",partition=\"a\\\"b\\\\c\\nd\"} 3\n"
            "sluice_jobs 0.25\n");
}

TEST(MetricsText, HistogramBucketsAreCumulative) {
  Histogram h({0.5, 1});
  h.Observe(0.25);
  h.Observe(0.5);  // le is inclusive
  h.Observe(0.75);
  h.Observe(7);
  MetricsText m;
  m.Family("d_seconds", "histogram", "x");
  m.Add({{"method", "Ping"}}, h);
  EXPECT_EQ(m.text(),
            "# HELP d_seconds x\n# TYPE d_seconds histogram\n"
            "d_seconds_bucket{method=\"Ping\",le=\"0.5\"} 2\n"
            "d_seconds_bucket{method=\"Ping\",le=\"1\"} 3\n"
            "d_seconds_bucket{method=\"Ping\",le=\"+Inf\"} 4\n"
            "d_seconds_sum{method=\"Ping\"} 8.5\n"
            "d_seconds_count{method=\"Ping\"} 4\n");
}

TEST(Histogram, ExponentialBounds) {
  EXPECT_EQ(Histogram::Exponential(0.5, 2, 3), (std::vector<double>{0.5, 1, 2}));
  Histogram h(Histogram::Exponential(1, 2, 3));  // 1 2 4
  for (double v : {0.5, 1.5, 3.0, 100.0}) h.Observe(v);
  EXPECT_EQ(h.counts(), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(h.count(), 4);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(OpenMetrics, CountersLoseTotalInTheirFamilyNameAndTheTextEnds) {
  MetricsText m;
  m.Family("sluice_jobs_submitted_total", "counter", "Jobs accepted");
  m.Add({}, 3);
  m.Family("sluice_jobs", "gauge", "Jobs by state");
  m.Add({{"state", "PENDING"}}, 2);
  m.Family("sluice_requeue_total_seconds", "gauge", "not a counter");
  EXPECT_EQ(ToOpenMetrics(m.text()),
            "# HELP sluice_jobs_submitted Jobs accepted\n"
            "# TYPE sluice_jobs_submitted counter\n"
            "sluice_jobs_submitted_total 3\n"
            "# HELP sluice_jobs Jobs by state\n"
            "# TYPE sluice_jobs gauge\n"
            "sluice_jobs{state=\"PENDING\"} 2\n"
            "# HELP sluice_requeue_total_seconds not a counter\n"
            "# TYPE sluice_requeue_total_seconds gauge\n"
            "# EOF\n");
  EXPECT_TRUE(WantsOpenMetrics("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"));
  EXPECT_FALSE(WantsOpenMetrics("text/plain;version=0.0.4"));
  EXPECT_FALSE(WantsOpenMetrics(""));
}

}  // namespace
}  // namespace sluice
