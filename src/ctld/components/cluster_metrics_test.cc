// /metrics from a controller's tables: gauges exact at the scrape, counters that sdiag -r
// does not reset, and the per-user series PrivateData keeps for admins.
#include "ctld/components/cluster_metrics.h"

#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

class ClusterMetricsTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    Config c = testing::SmallCluster({"n1", "n2"}, "batch");
    for (auto& n : c.nodes) {
      for (int i = 0; i < 2; ++i) n.gpus.push_back({i, "h100", "", "", ""});
    }
    if (!private_data_.empty()) c.raw["PrivateData"] = private_data_;
    return c;
  }
  void SetUp() override {
    testing::ControllerHarness::SetUp();
    RegisterWithGpus();
  }
  void RegisterWithGpus() {  // the harness registers nodes without their GPUs: drained
    for (const char* node : {"n1", "n2"}) {
      RegisterNodeRequest r;
      r.set_node(node);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
      UpdateNodeRequest u;
      u.add_names(node);
      u.set_state("RESUME");
      ASSERT_TRUE(ctl_->UpdateNode({0, 0}, u).ok());
      ASSERT_TRUE(ctl_->Commit().ok());
    }
  }
  int64_t Submit(int cpus, int gpus, bool hold = false) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_cpus_per_task(cpus);
    if (gpus > 0) {
      auto* g = r.mutable_spec()->add_gres_per_node();
      g->set_name("gpu");
      g->set_count(gpus);
    }
    if (hold) r.mutable_spec()->set_hold(true);
    auto rep = ctl_->Submit({1000, 1000}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  std::string Scrape(uint32_t uid, MetricsArea area = MetricsArea::kAll) {
    return ctl_->Metrics({uid, uid}, area, {});
  }
  // The value of the sample line starting with `series` (name and labels).
  static double Value(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + key.size()));
  }
  std::string private_data_;
};

TEST_F(ClusterMetricsTest, GaugesAreExactAtTheScrape) {
  Submit(4, 2);  // n1 whole
  Submit(1, 1);  // n2: 1 CPU, 1 GPU
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  Submit(1, 0, /*hold=*/true);
  const std::string m = Scrape(0);
  EXPECT_EQ(Value(m, "sluice_jobs{state=\"RUNNING\",partition=\"batch\"}"), 2) << m;
  EXPECT_EQ(Value(m, "sluice_jobs{state=\"PENDING\",partition=\"batch\"}"), 1);
  EXPECT_EQ(Value(m, "sluice_jobs_pending{reason=\"JobHeldUser\",partition=\"batch\"}"), 1);
  EXPECT_EQ(Value(m, "sluice_jobs_submitted_total"), 3);
  EXPECT_EQ(Value(m, "sluice_jobs_started_total"), 2);
  EXPECT_EQ(Value(m, "sluice_nodes{state=\"allocated\"}"), 1);
  EXPECT_EQ(Value(m, "sluice_nodes{state=\"mixed\"}"), 1);
  EXPECT_EQ(Value(m, "sluice_partition_cpus{partition=\"batch\",state=\"total\"}"), 8);
  EXPECT_EQ(Value(m, "sluice_partition_cpus{partition=\"batch\",state=\"allocated\"}"), 5);
  EXPECT_EQ(Value(m, "sluice_partition_cpus{partition=\"batch\",state=\"idle\"}"), 3);
  EXPECT_EQ(
      Value(m, "sluice_partition_gpus{partition=\"batch\",gpu_type=\"h100\",state=\"allocated\"}"),
      3);
  EXPECT_EQ(Value(m, "sluice_partition_gpus{partition=\"batch\",gpu_type=\"h100\",state=\"idle\"}"),
            1);
  EXPECT_EQ(Value(m, "sluice_user_gpus_allocated{user=\"u1000\"}"), 3);
  EXPECT_EQ(Value(m, "sluice_sched_pass_duration_seconds_count"), 1);
  EXPECT_EQ(Value(m, "sluice_sched_jobs_considered_total"), 2);
  EXPECT_GE(Value(m, "sluice_journal_commit_duration_seconds_count"), 3);

  // A drained idle node: its free CPUs and GPUs count as drained, not idle.
  UpdateNodeRequest u;
  u.add_names("n2");
  u.set_state("DRAIN");
  u.set_reason("maint");
  ASSERT_TRUE(ctl_->UpdateNode({0, 0}, u).ok());
  const std::string d = Scrape(0, MetricsArea::kPartitions);
  EXPECT_EQ(Value(d, "sluice_partition_cpus{partition=\"batch\",state=\"drained\"}"), 3);
  EXPECT_EQ(Value(d, "sluice_partition_cpus{partition=\"batch\",state=\"idle\"}"), 0);
  EXPECT_EQ(
      Value(d, "sluice_partition_gpus{partition=\"batch\",gpu_type=\"h100\",state=\"drained\"}"),
      1);
  EXPECT_EQ(d.find("sluice_jobs"), std::string::npos);  // one area only
}

TEST_F(ClusterMetricsTest, FailedGpusAreSeriesWithTheirFault) {
  HeartbeatRequest h;
  h.set_node("n2");
  h.mutable_gpu_health()->add_faults("");
  h.mutable_gpu_health()->add_faults("XID 79 error");
  ctl_->Heartbeat(h);
  ASSERT_TRUE(ctl_->Commit().ok());
  const std::string m = Scrape(0);
  EXPECT_EQ(Value(m, "sluice_gpus_failed"), 1) << m;
  EXPECT_EQ(Value(m, "sluice_gpu_failed{node=\"n2\",gpu=\"1\",fault=\"XID 79 error\"}"), 1);
  EXPECT_EQ(Value(m, "sluice_gpu_failed{node=\"n2\",gpu=\"0\",fault=\"\"}"), -1);  // none
}

TEST_F(ClusterMetricsTest, SdiagResetLeavesTheCountersAlone) {
  Submit(1, 0);
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_TRUE(ctl_->GetStats({0, 0}, /*reset=*/true).ok());
  EXPECT_EQ(ctl_->GetStats({0, 0}, false)->jobs_submitted(), 0);
  const std::string m = Scrape(0, MetricsArea::kJobs);
  EXPECT_EQ(Value(m, "sluice_jobs_submitted_total"), 1);
  EXPECT_EQ(Value(m, "sluice_jobs_started_total"), 1);
  Submit(1, 0);
  EXPECT_EQ(ctl_->GetStats({0, 0}, false)->jobs_submitted(), 1);
  EXPECT_EQ(Value(Scrape(0), "sluice_jobs_submitted_total"), 2);
}

TEST_F(ClusterMetricsTest, PrivateDataKeepsPerUserSeriesForAdmins) {
  Submit(1, 1);
  EXPECT_NE(Scrape(1000).find("sluice_user_jobs{"), std::string::npos);  // nothing private
  private_data_ = "jobs";
  StartController();
  RegisterWithGpus();
  const std::string user = Scrape(1000);
  EXPECT_EQ(user.find("sluice_user_"), std::string::npos);
  EXPECT_EQ(user.find("sluice_account_"), std::string::npos);
  EXPECT_EQ(Value(user, "sluice_jobs{state=\"PENDING\",partition=\"batch\"}"), 1);
  EXPECT_EQ(Scrape(1000, MetricsArea::kUsersAccts), "");
  EXPECT_EQ(Value(Scrape(0), "sluice_user_jobs{user=\"u1000\",state=\"PENDING\"}"), 1);
}

TEST(MetricsPath, AreasAndUnknownPaths) {
  EXPECT_EQ(*ParseMetricsPath("/metrics"), MetricsArea::kAll);
  EXPECT_EQ(*ParseMetricsPath("/metrics/"), MetricsArea::kAll);
  EXPECT_EQ(*ParseMetricsPath("/metrics/jobs-users-accts"), MetricsArea::kUsersAccts);
  EXPECT_EQ(*ParseMetricsPath("/metrics/scheduler/"), MetricsArea::kScheduler);
  EXPECT_FALSE(ParseMetricsPath("/metrics/x").ok());
  EXPECT_FALSE(ParseMetricsPath("/").ok());
}

}  // namespace
}  // namespace sluice::ctld
