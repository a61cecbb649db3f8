// sreport's Down / PLND Down arithmetic from node events (sreport_calc.h).
#include "cli/sreport_calc.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

NodeEventRecord Event(const std::string& state, int64_t start, int64_t end, int64_t cpus,
                      int64_t gpus) {
  NodeEventRecord e;
  e.set_node("node02");
  e.set_state(state);
  e.set_start_time(start);
  e.set_end_time(end);
  e.set_cpus(cpus);
  e.set_gpus(gpus);
  return e;
}

TEST(SreportNodeEvents, DownPeriodsAreClippedToTheWindowEdges) {
  // Window [1000, 2000), 2 nodes x 4 CPUs = 8000 CPU-seconds reported.
  std::vector<AcctJob> jobs(1);
  jobs[0].set_alloc_cpus(2);
  jobs[0].set_start_time(1500);
  jobs[0].set_end_time(1600);  // 200 CPU-s
  std::vector<NodeEventRecord> ev = {
      Event("DOWN", 900, 1100, 4, 2),   // starts before the window: 100 s count
      Event("DRAIN", 1900, 0, 4, 2),    // still open: counts until the window's end
      Event("DOWN", 100, 500, 4, 2),    // entirely before: nothing
      Event("MAINT", 1200, 1300, 4, 2)  // planned: 100 s
  };
  Utilization u = ClusterUtilization(jobs, 8, "cpu", 1000, 2000, 5000, ev);
  EXPECT_EQ(u.reported, 8000);
  EXPECT_EQ(u.allocated, 200);
  EXPECT_EQ(u.down, 4 * 100 + 4 * 100);
  EXPECT_EQ(u.planned_down, 4 * 100);
  EXPECT_EQ(u.idle, 8000 - 200 - 800 - 400);
  EXPECT_EQ(u.allocated + u.down + u.planned_down + u.idle + u.reserved, u.reported);
  // GPUs use the event's GPU count.
  Utilization g = ClusterUtilization({}, 4, "gres/gpu", 1000, 2000, 5000, ev);
  EXPECT_EQ(g.down, 2 * 200);
  EXPECT_EQ(g.planned_down, 2 * 100);
  EXPECT_EQ(g.idle, 4000 - 400 - 200);
  // An open event counts until now when now is inside the window.
  Utilization live = ClusterUtilization({}, 8, "cpu", 1000, 2000, 1950, ev);
  EXPECT_EQ(live.reported, 8 * 950);
  EXPECT_EQ(live.down, 4 * 100 + 4 * 50);
}

TEST(SreportNodeEvents, OverlappingTotalsNeverExceedReported) {
  // A draining node keeps running a job: Allocated + Down would exceed Reported.
  std::vector<AcctJob> jobs(1);
  jobs[0].set_alloc_cpus(4);
  jobs[0].set_start_time(0 + 1000);
  jobs[0].set_end_time(2000);
  std::vector<NodeEventRecord> ev = {Event("DRAIN", 1000, 2000, 4, 0)};
  Utilization u = ClusterUtilization(jobs, 4, "cpu", 1000, 2000, 5000, ev);
  EXPECT_EQ(u.reported, 4000);
  EXPECT_EQ(u.allocated, 4000);
  EXPECT_EQ(u.down, 0);
  EXPECT_EQ(u.idle, 0);
}

}  // namespace
}  // namespace sluice
