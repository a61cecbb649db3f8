#include "sched/array_throttle.h"

#include <gtest/gtest.h>

namespace sluice::sched {
namespace {

TEST(ArrayThrottle, AdmitsThrottleMinusRunningTasksPerArray) {
  ArrayThrottle throttle;
  int asked = 0;
  auto one_running = [&] {
    ++asked;
    return 1;
  };
  // Array 10 (%3, one task running): two more this pass, then no more.
  EXPECT_TRUE(throttle.Admit(10, 3, one_running));
  EXPECT_TRUE(throttle.Admit(10, 3, one_running));
  EXPECT_FALSE(throttle.Admit(10, 3, one_running));
  EXPECT_EQ(asked, 1);  // the running count is asked once per array
  // Another array has its own slots; an array at its throttle admits none.
  EXPECT_TRUE(throttle.Admit(20, 1, [] { return 0; }));
  EXPECT_FALSE(throttle.Admit(20, 1, [] { return 0; }));
  EXPECT_FALSE(throttle.Admit(30, 2, [] { return 2; }));
  // Jobs outside arrays and arrays without a throttle always pass, without counting.
  EXPECT_TRUE(throttle.Admit(0, 5, one_running));
  EXPECT_TRUE(throttle.Admit(40, 0, one_running));
  EXPECT_EQ(asked, 1);
}

}  // namespace
}  // namespace sluice::sched
