// AcctFeed alone, with a sink that keeps what was posted: job attempts and their steps,
// srun step ends, sacct's live records, node events (posted once per change, re-opened
// from the admin's time after a restart).
#include "ctld/components/acct_feed.h"

#include <gtest/gtest.h>

#include <variant>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr int64_t kT0 = 1'700'000'000;

class Capture : public acct::AcctSink {
 public:
  void Post(std::vector<acct::AcctOp> ops) override {
    for (auto& op : ops) posted.push_back(std::move(op));
  }
  int64_t QueueSize() override { return static_cast<int64_t>(posted.size()); }
  template <class T>
  std::vector<T> Of() const {
    std::vector<T> out;
    for (const auto& op : posted) {
      if (const T* t = std::get_if<T>(&op)) out.push_back(*t);
    }
    return out;
  }
  std::vector<acct::AcctOp> posted;
};

// An allocation (salloc): no batch step, so every step record is an srun step's.
JobInfo Running(int64_t id, int restarts = 0) {
  JobInfo j;
  j.mutable_spec()->set_interactive(true);
  j.set_job_id(id);
  j.set_state(JOB_RUNNING);
  j.set_restarts(restarts);
  j.set_submit_time(kT0);
  j.set_start_time(kT0);
  j.mutable_spec()->set_name("train");
  NodeAlloc* a = j.add_alloc();
  a->set_node("n1");
  a->set_mem_mb(1000);
  a->set_gpu_type("h100");
  return j;
}

ActiveStep Step(int id) {
  ActiveStep s;
  s.step_id = id;
  s.name = "python";
  s.start_time = kT0 + 5;
  s.ntasks = 2;
  s.use.push_back(StepNodeUse{"n1", {0, 1}, {0, 1}, 0});
  return s;
}

class AcctFeedTest : public ::testing::Test {
 protected:
  AcctFeedTest() : clock_(kT0), feed_(&clock_) { feed_.SetSink(&sink_); }
  ManualClock clock_;
  Capture sink_;
  AcctFeed feed_;
};

TEST(AcctFeedNoSink, PostsNothingAndKeepsNothing) {
  ManualClock clock(kT0);
  AcctFeed feed(&clock);
  EXPECT_FALSE(feed.enabled());
  EXPECT_EQ(feed.QueueSize(), 0);
  feed.JobCommitted(Running(1));
  feed.StepStarted(Running(1), Step(0));
  AcctJobsReply live;
  feed.AddLive(Running(1), &live);
  EXPECT_EQ(live.steps_size(), 0);  // the step was not recorded without a sink
}

TEST_F(AcctFeedTest, AStepStartedIsClosedWithItsJobsEnd) {
  JobInfo job = Running(7);
  feed_.JobCommitted(job);
  feed_.StepStarted(job, Step(0));
  auto steps = sink_.Of<acct::AcctStepRecord>();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].state, JOB_RUNNING);
  EXPECT_EQ(steps[0].nodes, "n1");
  EXPECT_EQ(steps[0].alloc_cpus, 2);
  EXPECT_NE(steps[0].alloc_tres.find("gres/gpu=2"), std::string::npos) << steps[0].alloc_tres;
  AcctJobsReply live;
  feed_.AddLive(job, &live);
  ASSERT_EQ(live.jobs_size(), 1);
  EXPECT_EQ(live.steps_size(), 1);  // the open srun step

  clock_.Advance(30);
  job.set_state(JOB_FAILED);
  job.set_end_time(kT0 + 30);
  sink_.posted.clear();
  feed_.JobCommitted(job);
  steps = sink_.Of<acct::AcctStepRecord>();
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().step_id, 0);
  EXPECT_EQ(steps.back().end_time, kT0 + 30);
  EXPECT_NE(steps.back().state, JOB_RUNNING);
  sink_.posted.clear();
  feed_.JobCommitted(job);  // closed once: not again
  for (const auto& s : sink_.Of<acct::AcctStepRecord>()) EXPECT_NE(s.step_id, 0);
}

TEST_F(AcctFeedTest, SrunReportsTheStepsEndWithItsExitAndUsage) {
  JobInfo job = Running(8);
  feed_.StepStarted(job, Step(3));
  clock_.Advance(12);
  KeepaliveRequest req;
  AcctStepEnd* e = req.add_acct_step_ends();
  e->set_step_id(3);
  e->set_exit_code(2);
  e->set_max_rss_kb(4096);
  e->set_total_cpu_us(-1);
  feed_.StepEnded(8, 3, req);
  auto steps = sink_.Of<acct::AcctStepRecord>();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].state, JOB_FAILED);
  EXPECT_EQ(steps[1].exit_code, 2);
  EXPECT_EQ(steps[1].max_rss_kb, 4096);
  EXPECT_EQ(steps[1].end_time, kT0 + 12);
  feed_.StepEnded(8, 3, req);  // already ended: nothing more
  EXPECT_EQ(sink_.Of<acct::AcctStepRecord>().size(), 2u);
}

TEST_F(AcctFeedTest, TheBatchStepCarriesTheUsageOfTheEndReport) {
  JobInfo job = Running(10);
  job.mutable_spec()->set_interactive(false);
  feed_.BatchUsage(10, {2048, 5'000'000, "", ""});
  job.set_state(JOB_COMPLETED);
  job.set_end_time(kT0 + 9);
  feed_.JobCommitted(job);
  auto steps = sink_.Of<acct::AcctStepRecord>();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].step_id, acct::kBatchStep);
  EXPECT_EQ(steps[0].max_rss_kb, 2048);
  EXPECT_EQ(steps[0].total_cpu_us, 5'000'000);
  sink_.posted.clear();
  feed_.JobCommitted(job);  // the job has ended: its usage is forgotten
  steps = sink_.Of<acct::AcctStepRecord>();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].max_rss_kb, -1);
}

TEST_F(AcctFeedTest, ARequeuedJobClosesItsEarlierAttemptsFirst) {
  JobInfo job = Running(9);
  feed_.StepStarted(job, Step(0));
  JobInfo again = Running(9, 1);
  again.set_eligible_time(kT0 + 40);
  sink_.posted.clear();
  feed_.JobCommitted(again);
  ASSERT_FALSE(sink_.posted.empty());
  const auto* close = std::get_if<acct::AcctCloseAttempts>(&sink_.posted[0]);
  ASSERT_NE(close, nullptr);
  AcctJobsReply live;
  feed_.AddLive(again, &live);
  EXPECT_EQ(live.steps_size(), 0);  // the old attempt's step is not the new attempt's
}

TEST_F(AcctFeedTest, NodeEventsOncePerChangeAndReopenedFromTheAdminsTime) {
  Config config = testing::SmallCluster({"n1", "n2"}, "batch");
  NodeTable nodes(config);
  for (NodeRuntime& n : nodes.nodes()) n.registered = true;
  auto no_maint = [] { return std::set<std::string>{}; };
  feed_.NodesResync(nodes, {});
  EXPECT_EQ(sink_.Of<acct::NodeEventSet>().size(), 2u);  // both available: "" events
  sink_.posted.clear();
  NodeRuntime* n1 = nodes.Find("n1");
  n1->admin.drain = true;
  n1->admin.reason = "bad fan";
  n1->admin.reason_time = kT0 - 100;
  feed_.NodesCommitted(nodes, no_maint, true);
  auto ev = sink_.Of<acct::NodeEventSet>();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].node, "n1");
  EXPECT_EQ(ev[0].state, "DRAIN");
  EXPECT_EQ(ev[0].at, kT0);
  feed_.NodesCommitted(nodes, no_maint, true);  // no change: nothing
  EXPECT_EQ(sink_.Of<acct::NodeEventSet>().size(), 1u);
  int maint_calls = 0;
  feed_.NodesCommitted(
      nodes, [&] { return ++maint_calls, std::set<std::string>{}; }, false);
  EXPECT_EQ(maint_calls, 0);  // no node changed and scanned this second already
  clock_.Advance(1);
  feed_.NodesCommitted(
      nodes, [&] { return ++maint_calls, std::set<std::string>{"n2"}; }, false);
  EXPECT_EQ(maint_calls, 1);
  ev = sink_.Of<acct::NodeEventSet>();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].node, "n2");
  EXPECT_EQ(ev[1].state, "MAINT");
  sink_.posted.clear();
  feed_.NodesResync(nodes, {});  // a restart: the drain is re-opened from when it was set
  ev = sink_.Of<acct::NodeEventSet>();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].state, "DRAIN");
  EXPECT_EQ(ev[0].at, kT0 - 100);
  EXPECT_EQ(ev[1].state, "");
}

}  // namespace
}  // namespace sluice::ctld
