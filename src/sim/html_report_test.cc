// The report's time series: bin averages of a step function, computed by hand.
#include "sim/html_report.h"

#include <gtest/gtest.h>

namespace sluice::sim {
namespace {

TEST(HtmlReportTest, BinAveragesIntegrateTheStepFunction) {
  // Level 2 over [0, 3600), 0 over [3600, 5400), 4 over [5400, 7200); two bins of 3600 s.
  auto points = BinAverages({{5400, 4}, {0, 2}, {3600, -2}}, 7200, 2, 2.0);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_DOUBLE_EQ(points[0].first, 0.5);  // bin middles in hours
  EXPECT_DOUBLE_EQ(points[1].first, 1.5);
  EXPECT_DOUBLE_EQ(points[0].second, 1.0);  // 2 / scale 2
  EXPECT_DOUBLE_EQ(points[1].second, 1.0);  // (0 x 1800 + 4 x 1800) / 3600 / 2
}

TEST(HtmlReportTest, ChangesAfterTheHorizonAreIgnored) {
  auto points = BinAverages({{0, 1}, {100, 5}}, 100, 4, 1.0);
  ASSERT_EQ(points.size(), 4u);
  for (const auto& p : points) EXPECT_DOUBLE_EQ(p.second, 1.0);
}

}  // namespace
}  // namespace sluice::sim
