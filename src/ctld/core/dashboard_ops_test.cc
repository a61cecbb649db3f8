// The dashboard's state from a controller: GPUs shown held by the job that holds them,
// the queue explained, PrivateData for a non-admin, recent events, GPU-hours per account.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

using nlohmann::json;

constexpr uint32_t kAlice = 1000, kBob = 2000;

class DashboardTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    Config c = testing::SmallCluster({"n1", "n2"}, "batch");
    for (auto& n : c.nodes) {
      for (int i = 0; i < 4; ++i) n.gpus.push_back({i, "h100", "", "", ""});
    }
    c.slurmd_timeout_s = 10;
    if (!private_data_.empty()) c.raw["PrivateData"] = private_data_;
    return c;
  }
  void SetUp() override {
    testing::ControllerHarness::SetUp();
    for (const char* node : {"n1", "n2"}) {  // registered with their GPUs, then resumed
      RegisterNodeRequest r;
      r.set_node(node);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      for (int i = 0; i < 4; ++i) r.add_gpus()->set_index(i);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
      UpdateNodeRequest u;
      u.add_names(node);
      u.set_state("RESUME");
      ASSERT_TRUE(ctl_->UpdateNode({0, 0}, u).ok());
      ASSERT_TRUE(ctl_->Commit().ok());
    }
  }
  int64_t Submit(uint32_t uid, int cpus, int gpus, bool hold = false) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_name("train");
    r.mutable_spec()->set_cpus_per_task(cpus);
    r.mutable_spec()->set_requeue(1);
    if (gpus > 0) {
      auto* g = r.mutable_spec()->add_gres_per_node();
      g->set_name("gpu");
      g->set_count(gpus);
    }
    r.mutable_spec()->set_hold(hold);
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  json State(uint32_t uid) { return json::parse(ctl_->Dashboard({uid, uid})); }
  // The job ids shown on node `name`'s GPUs, by GPU index.
  static std::map<int, int64_t> Cells(const json& state, const std::string& name) {
    std::map<int, int64_t> out;
    for (const json& n : state["nodes"]) {
      if (n["name"] != name) continue;
      for (const json& g : n["gpus"]) out[g["index"].get<int>()] = g["job"].get<int64_t>();
    }
    return out;
  }
  std::string private_data_;
};

TEST_F(DashboardTest, ShowsEachGpuHeldByItsJobAndTheQueueExplained) {
  const int64_t a = Submit(kAlice, 1, 2);
  Pass();
  const int64_t held = Submit(kBob, 1, 1, /*hold=*/true);
  const JobInfo& job = *ctl_->jobs().Find(a);
  ASSERT_EQ(job.state(), JOB_RUNNING);
  const json s = State(0);
  EXPECT_EQ(s["user"], "root");
  EXPECT_TRUE(s["admin"].get<bool>());
  EXPECT_EQ(s["totals"]["gpus"], 8);
  EXPECT_EQ(s["totals"]["gpus_allocated"], 2);
  EXPECT_EQ(s["totals"]["running"], 1);
  EXPECT_EQ(s["totals"]["pending"], 1);
  const std::string node = job.alloc(0).node();
  std::map<int, int64_t> want;
  for (int i = 0; i < 4; ++i) want[i] = 0;
  for (int g : job.alloc(0).gpu_ids()) want[g] = a;
  EXPECT_EQ(Cells(s, node), want);
  ASSERT_EQ(s["jobs"].size(), 1u);
  EXPECT_EQ(s["jobs"][0]["id"], a);
  EXPECT_EQ(s["jobs"][0]["user"], "u1000");
  EXPECT_EQ(s["jobs"][0]["gpus"], 2);
  ASSERT_EQ(s["queue"].size(), 1u);
  EXPECT_EQ(s["queue"][0]["id"], held);
  EXPECT_EQ(s["queue"][0]["reason"], "JobHeldUser");
  EXPECT_NE(s["queue"][0]["explanation"].get<std::string>().find("held"), std::string::npos)
      << s["queue"][0];
}

// The queue is the last pass's order, then the pending jobs it did not consider (held,
// submitted since), oldest first; jobs no longer pending drop out.
TEST_F(DashboardTest, QueueIsThePassOrderThenTheJobsItSkipped) {
  const int64_t r1 = Submit(kAlice, 1, 4);
  const int64_t r2 = Submit(kAlice, 1, 4);
  const int64_t waits = Submit(kBob, 1, 4);
  Pass();
  ASSERT_EQ(ctl_->jobs().Find(r1)->state(), JOB_RUNNING);
  ASSERT_EQ(ctl_->jobs().Find(r2)->state(), JOB_RUNNING);
  const int64_t held = Submit(kAlice, 1, 1, /*hold=*/true);
  const int64_t late = Submit(kBob, 1, 4);  // after the pass
  auto ids = [](const json& s) {
    std::vector<int64_t> out;
    for (const json& q : s["queue"]) out.push_back(q["id"].get<int64_t>());
    return out;
  };
  json s = State(0);
  EXPECT_EQ(ids(s), (std::vector<int64_t>{waits, held, late}));
  EXPECT_EQ(s["totals"]["pending"], 3);
  Pass();
  s = State(0);
  EXPECT_EQ(ids(s), (std::vector<int64_t>{waits, late, held}));
  CancelRequest cancel;
  cancel.add_job_ids(waits);
  ctl_->Cancel({0, 0}, cancel);
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(ctl_->jobs().Find(waits)->state(), JOB_CANCELLED);
  s = State(0);
  EXPECT_EQ(ids(s), (std::vector<int64_t>{late, held}));
  EXPECT_EQ(s["totals"]["pending"], 2);
}

class DashboardPrivateTest : public DashboardTest {
 protected:
  DashboardPrivateTest() { private_data_ = "jobs"; }
};

TEST_F(DashboardPrivateTest, ShowsANonAdminOnlyTheirOwnJobs) {
  const int64_t a = Submit(kAlice, 1, 2);
  Pass();
  Submit(kAlice, 1, 1, /*hold=*/true);
  const int64_t b = Submit(kBob, 1, 1, /*hold=*/true);
  const json bob = State(kBob);
  EXPECT_FALSE(bob["admin"].get<bool>());
  EXPECT_TRUE(bob["jobs"].empty());
  const std::string node = ctl_->jobs().Find(a)->alloc(0).node();
  int hidden = 0;
  for (const auto& [gpu, job] : Cells(bob, node)) {
    EXPECT_NE(job, a);
    hidden += job == -1;
  }
  EXPECT_EQ(hidden, 2);
  ASSERT_EQ(bob["queue"].size(), 1u);
  EXPECT_EQ(bob["queue"][0]["id"], b);
  EXPECT_EQ(bob["totals"]["pending"], 1);
  const json alice = State(kAlice);
  EXPECT_EQ(alice["jobs"].size(), 1u);
  EXPECT_EQ(alice["queue"].size(), 1u);
  EXPECT_EQ(State(0)["queue"].size(), 2u);  // root sees all
}

TEST_F(DashboardTest, RecentEventsNameNodeFailuresAndRequeues) {
  const int64_t a = Submit(kAlice, 1, 1);
  Pass();
  const std::string node = ctl_->jobs().Find(a)->alloc(0).node();
  const std::string other = node == "n1" ? "n2" : "n1";
  clock_.Advance(11);
  HeartbeatRequest hb;
  hb.set_node(other);
  ctl_->Heartbeat(hb);
  clock_.Advance(1);
  ctl_->Tick();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(ctl_->jobs().Find(a)->state(), JOB_PENDING);  // requeued (--requeue)
  const json events = State(0)["events"];
  ASSERT_EQ(events.size(), 2u) << events;
  // Newest first: the node went DOWN, and then its job was requeued.
  EXPECT_EQ(events[0]["kind"], "requeue");
  EXPECT_EQ(events[0]["job_id"], a);
  EXPECT_EQ(events[0]["node"], node);
  EXPECT_NE(events[0]["text"].get<std::string>().find("requeued"), std::string::npos);
  EXPECT_EQ(events[1]["kind"], "node_failure");
  EXPECT_EQ(events[1]["node"], node);
  EXPECT_EQ(events[1]["job_id"], 0);
}

TEST_F(DashboardTest, GpuHoursPerAccountOverTheLastDay) {
  Submit(kAlice, 1, 2);
  Pass();
  clock_.Advance(1800);
  Pass();
  const json hours = State(0)["gpu_hours_24h"];
  ASSERT_EQ(hours.size(), 1u) << hours;
  EXPECT_EQ(hours[0]["account"], "root");
  EXPECT_DOUBLE_EQ(hours[0]["hours"].get<double>(), 1.0);  // 2 GPUs x 30 min
}

}  // namespace
}  // namespace sluice::ctld
