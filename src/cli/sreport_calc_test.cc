// sreport's Down / PLND Down arithmetic from node events (sreport_calc.h).
#include "cli/sreport_calc.h"

#include <gtest/gtest.h>

#include "acct/acct_record.h"

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

namespace sluice {
namespace {

AcctStep Sampled(int64_t job, int step, int64_t start, int64_t end, int util) {
  AcctStep s;
  s.set_job_id(job);
  s.set_step_id(step);
  s.set_start_time(start);
  s.set_end_time(end);
  s.set_tres_usage_in_ave("gres/gpumem=1M,gres/gpuutil=" + std::to_string(util));
  return s;
}

// gres/gpuutil: the GPU-seconds jobs kept busy (srun steps' samples, else the batch
// step's), beside the GPU-seconds they held.
TEST(SreportGpuUtil, BusyGpuSecondsFromTheStepsSamples) {
  std::vector<AcctJob> jobs(2);
  jobs[0].set_job_id(1);
  jobs[0].set_user("alice");
  jobs[0].set_start_time(1000);
  jobs[0].set_end_time(2000);
  jobs[0].set_alloc_gpus(8);
  jobs[1] = jobs[0];
  jobs[1].set_job_id(2);
  jobs[1].set_user("bob");
  std::vector<AcctStep> steps = {
      Sampled(1, acct::kBatchStep, 1000, 2000, 100),  // alice: one of 8 GPUs busy, no srun
      Sampled(2, acct::kBatchStep, 1000, 2000, 400),  // bob: the srun steps win
      Sampled(2, 0, 1000, 1500, 800),                 // 8 GPUs busy for 500 s
      Sampled(2, 1, 1500, 2000, 200)};                // 2 GPUs busy for 500 s
  auto top = TopUsers(jobs, "gres/gpuutil", 1000, 2000, 3000, 10, steps);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].user, "bob");
  EXPECT_EQ(top[0].used, 8 * 500 + 2 * 500);
  EXPECT_EQ(top[1].user, "alice");
  EXPECT_EQ(top[1].used, 1000);
  auto held = TopUsers(jobs, "gres/gpu", 1000, 2000, 3000, 10);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].used, 8000);  // what they held
  // Half the window: the batch sample counts for the half inside it.
  std::vector<const AcctStep*> alice = {&steps[0]};
  EXPECT_EQ(GpuBusySeconds(jobs[0], alice, 1500, 2000, 3000), 500);
  EXPECT_EQ(GpuBusySeconds(jobs[0], {}, 1000, 2000, 3000), 0);
}

}  // namespace
}  // namespace sluice
