#include "ctld/components/recent_events.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

TEST(RecentEvents, KeepsTheNewestUpToItsCapacity) {
  RecentEvents events(3);
  for (int i = 1; i <= 5; ++i) events.Add({i, EventKind::kRequeue, i, 0, "", "e"});
  ASSERT_EQ(events.events().size(), 3u);
  EXPECT_EQ(events.events().front().job_id, 3);
  EXPECT_EQ(events.events().back().job_id, 5);
  EXPECT_STREQ(EventKindName(EventKind::kNodeFailure), "node_failure");
  EXPECT_STREQ(EventKindName(EventKind::kPreemption), "preemption");
}

}  // namespace
}  // namespace sluice::ctld
