#include "ctld/components/pass_order.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

std::vector<int64_t> Ids(const std::vector<PassOrder::Job>& jobs) {
  std::vector<int64_t> out;
  for (const auto& j : jobs) out.push_back(j.id);
  return out;
}

TEST(PassOrder, CountsAndFirstThreeWithinEachPartition) {
  const std::string gpu = "gpu", cpu = "cpu";
  PassOrder order;
  // Pass order (ids out of order, as priorities make it), two partitions interleaved.
  order.Record({{9, 50, 0, &gpu},
                {4, 40, 0, &cpu},
                {2, 30, 0, &gpu},
                {7, 30, 0, &gpu},
                {5, 20, 0, &cpu},
                {1, 10, 0, &gpu},
                {3, 5, 0, &gpu}});
  EXPECT_EQ(Ids(order.order()), (std::vector<int64_t>{9, 4, 2, 7, 5, 1, 3}));
  EXPECT_TRUE(order.Considered(5));
  EXPECT_FALSE(order.Considered(6));
  EXPECT_EQ(order.Before(9)->count, 0);
  EXPECT_TRUE(order.Before(9)->first.empty());
  EXPECT_EQ(order.Before(7)->count, 2);
  EXPECT_EQ(Ids(order.Before(7)->first), (std::vector<int64_t>{9, 2}));
  EXPECT_EQ(order.Before(3)->count, 4);
  EXPECT_EQ(Ids(order.Before(3)->first), (std::vector<int64_t>{9, 2, 7}));
  EXPECT_EQ(order.Before(3)->first[1].priority, 30);
  EXPECT_EQ(order.Before(5)->count, 1);  // only cpu's job 4
  EXPECT_EQ(Ids(order.Before(5)->first), (std::vector<int64_t>{4}));
  EXPECT_FALSE(order.Before(6).has_value());  // not considered
}

TEST(PassOrder, EachRecordReplacesTheLast) {
  const std::string p = "p";
  PassOrder order;
  order.Record({{1, 1, 0, &p}, {2, 1, 0, &p}});
  order.Record({{2, 1, 0, &p}});
  EXPECT_FALSE(order.Before(1).has_value());
  EXPECT_EQ(order.Before(2)->count, 0);
}

}  // namespace
}  // namespace sluice::ctld
