// StepTable alone: steps added, kept alive, ended, restored node by node, expired; the
// leases of interactive allocations.
#include "ctld/components/step_table.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

ActiveStep Step(int id, int64_t seen_ms, std::vector<std::string> nodes = {"n1"}) {
  ActiveStep s;
  s.step_id = id;
  s.name = "step" + std::to_string(id);
  s.last_seen_ms = seen_ms;
  for (auto& n : nodes) s.use.push_back(StepNodeUse{n, {0, 1}, {2}, 100});
  return s;
}

RunningStep Reported(int64_t job, int step, std::vector<int> cpus) {
  RunningStep r;
  r.set_job_id(job);
  r.set_step_id(step);
  r.set_name("train");
  r.set_start_time(1234);
  r.set_ntasks(8);
  for (int c : cpus) r.add_cpu_ids(c);
  r.add_gpu_ids(0);
  r.set_mem_mb(512);
  return r;
}

TEST(StepTable, AddFindRunningAndEnd) {
  StepTable t;
  EXPECT_EQ(t.Of(7), nullptr);
  EXPECT_EQ(t.Find(7, 0), nullptr);
  t.Add(7, Step(0, 0));
  t.Add(7, Step(1, 0));
  ASSERT_NE(t.Find(7, 1), nullptr);
  EXPECT_EQ(t.Find(7, 1)->name, "step1");
  EXPECT_EQ(t.Running(7).size(), 2u);
  EXPECT_TRUE(t.Running(8).empty());
  EXPECT_TRUE(t.End(7, 0));
  EXPECT_FALSE(t.End(7, 0));
  EXPECT_FALSE(t.End(9, 0));
  EXPECT_TRUE(t.End(7, 1));
  EXPECT_EQ(t.Of(7), nullptr);  // a job without steps leaves no entry
  EXPECT_TRUE(t.all().empty());
}

TEST(StepTable, SilentStepsExpireAndKeptAliveOnesStay) {
  StepTable t;
  t.Add(7, Step(0, 0));
  t.Add(7, Step(1, 0));
  t.Touch(7, {1}, 4000);
  t.Touch(7, {5}, 4000);  // unknown step: nothing
  auto running = [](int64_t) { return true; };
  t.Expire(5000, 5000, running);  // 5 s silent is not more than the lease
  EXPECT_EQ(t.Running(7).size(), 2u);
  t.Expire(5001, 5000, running);
  ASSERT_EQ(t.Running(7).size(), 1u);
  EXPECT_EQ(t.Running(7)[0].step_id, 1);
  t.Expire(9001, 5000, running);
  EXPECT_EQ(t.Of(7), nullptr);
}

TEST(StepTable, StepsOfAJobNoLongerRunningAreDropped) {
  StepTable t;
  t.Add(7, Step(0, 1000));
  t.Add(8, Step(0, 1000));
  t.Expire(1000, 5000, [](int64_t job) { return job == 8; });
  EXPECT_EQ(t.Of(7), nullptr);
  EXPECT_NE(t.Of(8), nullptr);
}

TEST(StepTable, RestoreJoinsEachNodesShareOnce) {
  StepTable t;
  t.Restore(Reported(7, 2, {0, 1}), "n1", 500);
  t.Restore(Reported(7, 2, {4}), "n2", 600);
  t.Restore(Reported(7, 2, {0, 1}), "n1", 700);  // the same node again: no second share
  const ActiveStep* s = t.Find(7, 2);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "train");
  EXPECT_EQ(s->start_time, 1234);
  EXPECT_EQ(s->ntasks, 8);
  EXPECT_EQ(s->last_seen_ms, 500);
  ASSERT_EQ(s->use.size(), 2u);
  EXPECT_EQ(s->use[0].node, "n1");
  EXPECT_EQ(s->use[0].cpu_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(s->use[1].node, "n2");
  EXPECT_EQ(s->use[1].mem_mb, 512);
}

TEST(StepTable, AllocationLeaseIsArmedWhenFirstSeen) {
  StepTable t;
  EXPECT_FALSE(t.AllocationSilent(3, 10000, 5000));  // first seen now
  EXPECT_FALSE(t.AllocationSilent(3, 15000, 5000));
  EXPECT_TRUE(t.AllocationSilent(3, 15001, 5000));
  t.SeeAllocation(3, 15001);
  EXPECT_FALSE(t.AllocationSilent(3, 20000, 5000));
  t.ForgetAllocation(3);
  EXPECT_FALSE(t.AllocationSilent(3, 90000, 5000));  // forgotten: armed again
}

}  // namespace
}  // namespace sluice::ctld
