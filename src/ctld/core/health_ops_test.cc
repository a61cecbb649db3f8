// Controller side of node health: NodeHealth in registrations/heartbeats drains and
// undrains (once per seq, never an admin's drain), and Prolog/Epilog failures in a job's
// end report drain the batch host (a failed prolog also requeues the job).
#include <gtest/gtest.h>

#include <filesystem>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAdmin = 500;

class HealthOps : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return testing::SmallCluster({"node01", "node02"}, "gpu"); }
  ControllerOptions MakeOptions() const override {
    ControllerOptions o = ControllerHarness::MakeOptions();
    o.admin_uid = kAdmin;
    return o;
  }
  // A new controller instance on the same store (a restart), nodes registered empty.
  void Restart() { StartController(); }
  HeartbeatReply Beat(const std::string& node, int64_t seq, bool failed,
                      const std::string& reason) {
    HeartbeatRequest h;
    h.set_node(node);
    h.mutable_health()->set_seq(seq);
    h.mutable_health()->set_failed(failed);
    h.mutable_health()->set_reason(reason);
    HeartbeatReply r = ctl_->Heartbeat(h);
    EXPECT_TRUE(ctl_->Commit().ok());
    return r;
  }
  NodeInfo Node(int i) { return ctl_->GetNodes({})->nodes(i); }
  void Update(const std::string& node, const std::string& state, const std::string& reason = "") {
    UpdateNodeRequest r;
    r.add_names(node);
    r.set_state(state);
    r.set_reason(reason);
    ASSERT_TRUE(ctl_->UpdateNode({kAdmin, kAdmin}, r).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  void End(int64_t id, bool prolog_failed, bool epilog_failed) {
    JobEndedRequest e;
    e.set_node(ctl_->jobs().Find(id)->alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_state(prolog_failed ? JOB_FAILED : JOB_COMPLETED);
    e.mutable_report()->set_prolog_failed(prolog_failed);
    e.mutable_report()->set_epilog_failed(epilog_failed);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
};

TEST_F(HealthOps, FailureDrainsOncePerRunAndPassLiftsOnlyItsOwnDrain) {
  Beat("node01", 1, true, "GPU 3 ECC");
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "GPU 3 ECC");
  // RESUME holds until the next run of the program (same seq: no re-drain).
  Update("node01", "RESUME");
  Beat("node01", 1, true, "GPU 3 ECC");
  EXPECT_FALSE(Node(0).drain());
  Beat("node01", 2, true, "GPU 3 ECC");
  EXPECT_TRUE(Node(0).drain());
  Beat("node01", 3, false, "GPU 3 ECC");
  EXPECT_FALSE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "");
  // An admin drain survives failing and passing runs.
  Update("node02", "DRAIN", "maintenance");
  Beat("node02", 1, true, "disk full");
  EXPECT_EQ(Node(1).reason(), "maintenance");
  Beat("node02", 2, false, "disk full");
  Beat("node02", 3, false, "maintenance");  // same text, but set by an admin
  EXPECT_TRUE(Node(1).drain());
}

TEST_F(HealthOps, RepliesCarryAllocatedCpus) {
  EXPECT_EQ(Beat("node01", 1, false, "").alloc_cpus(), 0);
  SubmitAndStart();
  EXPECT_EQ(Beat("node01", 2, false, "").alloc_cpus(), 1);
}

TEST_F(HealthOps, PrologFailureDrainsAndRequeuesEpilogFailureDrains) {
  int64_t id = SubmitAndStart();
  ASSERT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node01");
  End(id, true, false);
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_PENDING);
  EXPECT_EQ(ctl_->jobs().Find(id)->restarts(), 1);
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "Prolog error");
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node02");
  End(id, false, true);
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_COMPLETED);
  EXPECT_EQ(Node(1).reason(), "Epilog error");
}

// An agent that cannot be reached for a launch (restarting) is not drained: the job is
// requeued and the node takes no new job until the agent registers again.
TEST_F(HealthOps, UnreachableAgentAtLaunchIsNotDrained) {
  int64_t id = SubmitAndStart();
  ASSERT_EQ(link_.launches.size(), 1u);
  link_.launches[0].done(Unavailable("failed to connect to all addresses"));
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id)->state(), JOB_PENDING);
  EXPECT_FALSE(Node(0).drain());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_EQ(ctl_->jobs().Find(id)->alloc(0).node(), "node02");
  HeartbeatRequest h;
  h.set_node("node01");
  EXPECT_TRUE(ctl_->Heartbeat(h).reregister());
}

// After a controller restart, a job the previous instance just started may not be on
// its batch host yet (the LaunchJob still in flight): it is launched again (the agent
// runs a job/restart pair once) instead of being requeued; an old one is lost.
TEST_F(HealthOps, RestartRelaunchesAJustStartedJobMissingFromRegistration) {
  int64_t fresh = SubmitAndStart();
  clock_.Advance(1);
  Restart();
  size_t launches = link_.launches.size();
  Register("node01");
  EXPECT_EQ(ctl_->jobs().Find(fresh)->state(), JOB_RUNNING);
  EXPECT_EQ(ctl_->jobs().Find(fresh)->restarts(), 0);
  ASSERT_EQ(link_.launches.size(), launches + 1);
  EXPECT_EQ(link_.launches.back().req.launch().job_id(), fresh);
  EXPECT_EQ(link_.launches.back().to.node, "node01");
  // Long after its start no launch can be in flight: lost with its node, requeued.
  clock_.Advance(kLaunchInFlightS + 1);
  Restart();
  Register("node01");
  EXPECT_EQ(ctl_->jobs().Find(fresh)->state(), JOB_PENDING);
  EXPECT_EQ(ctl_->jobs().Find(fresh)->restarts(), 1);
}

}  // namespace
}  // namespace sluice::ctld

namespace sluice::ctld {
namespace {

// GPUs found by the agent (AutoDetect=nvml) and its GPU health check.
class GpuHealthOps : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    Config c = testing::SmallCluster({"node01", "node02"}, "gpu");
    for (NodeConfig& n : c.nodes) n.gpus = {GpuDef{0, "h100"}, GpuDef{1, "h100"}};
    c.gpu_health_withhold = withhold_;
    return c;
  }
  static GpuInfo Found(int i) {
    GpuInfo g;
    g.set_index(i);
    g.set_type("h100");
    g.set_file("/dev/nvidia" + std::to_string(i));
    g.set_links(i == 0 ? "-1,18" : "18,-1");
    g.set_cores("0-3");
    g.set_uuid("GPU-" + std::to_string(i));
    g.set_name("NVIDIA H100 80GB HBM3");
    return g;
  }
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-ctld-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    StartController();
    for (const char* node : {"node01", "node02"}) RegisterPlain(node);
  }
  // Registers with the configured GPUs echoed back (no autodetection).
  void RegisterPlain(const std::string& node) {
    RegisterNodeRequest r = Registration(node);
    r.clear_gpus();
    for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
    ASSERT_TRUE(ctl_->RegisterNode(r).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  RegisterNodeRequest Registration(const std::string& node) {
    RegisterNodeRequest r;
    r.set_node(node);
    r.set_cpus(4);
    r.set_real_memory_mb(1000);
    for (int i = 0; i < 2; ++i) *r.add_gpus() = Found(i);
    return r;
  }
  void Faults(const std::string& node, std::vector<std::string> faults) {
    HeartbeatRequest h;
    h.set_node(node);
    for (auto& f : faults) h.mutable_gpu_health()->add_faults(f);
    ctl_->Heartbeat(h);
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  int64_t SubmitGpuJob(int gpus) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_requeue(1);
    GresRequest* g = r.mutable_spec()->add_gres_per_node();
    g->set_name("gpu");
    g->set_count(gpus);
    auto rep = ctl_->Submit({1000, 1000}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  NodeInfo Node(int i) { return ctl_->GetNodes({})->nodes(i); }
  bool withhold_ = false;
};

TEST_F(GpuHealthOps, FoundGpusAreShownAndTheirLinksUsed) {
  ASSERT_TRUE(ctl_->RegisterNode(Registration("node01")).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  NodeInfo n = Node(0);
  ASSERT_EQ(n.gpus_size(), 2);
  EXPECT_EQ(n.gpus(1).uuid(), "GPU-1");
  EXPECT_EQ(n.gpus(1).name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(n.gpus(1).links(), "18,-1");
  EXPECT_EQ(n.gpus(1).cores(), "0-3");
  EXPECT_FALSE(n.drain());
  sched::ClusterSnapshot snap = ctl_->nodes().Snapshot(false);
  EXPECT_EQ(snap.nodes[0].gpus[0].links, (std::vector<int>{0, 18}));
  EXPECT_TRUE(snap.nodes[1].gpus[0].links.empty());  // node02 registered without topology
}

TEST_F(GpuHealthOps, ADisagreementDrainsWithTheAgentsWords) {
  RegisterNodeRequest r = Registration("node02");
  r.set_gres_error("gres/gpu AutoDetect=nvml: GPU 1 is an NVIDIA A100 (a100), configured as h100");
  ASSERT_TRUE(ctl_->RegisterNode(r).ok());
  ASSERT_TRUE(ctl_->Commit().ok());
  EXPECT_TRUE(Node(1).drain());
  EXPECT_EQ(Node(1).reason(), r.gres_error());
}

TEST_F(GpuHealthOps, AFailedGpuDrainsItsNodeRequeuesItsJobAndRecoveryLiftsTheDrain) {
  int64_t on_gpu = SubmitGpuJob(1);
  ASSERT_EQ(ctl_->jobs().Find(on_gpu)->alloc(0).node(), "node01");
  ASSERT_EQ(ctl_->jobs().Find(on_gpu)->alloc(0).gpu_ids(0), 0);
  Faults("node01", {"", "uncorrectable ECC errors (2)"});  // GPU 1: no job on it
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "GPU 1 failed: uncorrectable ECC errors (2)");
  EXPECT_EQ(ctl_->jobs().Find(on_gpu)->state(), JOB_RUNNING);
  Faults("node01", {"XID 79 error", "uncorrectable ECC errors (2)"});
  EXPECT_EQ(ctl_->jobs().Find(on_gpu)->state(), JOB_PENDING);  // requeued
  EXPECT_EQ(ctl_->jobs().Find(on_gpu)->restarts(), 1);
  EXPECT_EQ(Node(0).reason(), "GPU 1 failed: uncorrectable ECC errors (2)");  // the first one
  Faults("node01", {"XID 79 error", ""});  // GPU 1 recovered; GPU 0 still failed
  EXPECT_TRUE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "GPU 0 failed: XID 79 error");
  Faults("node01", {"", ""});
  EXPECT_FALSE(Node(0).drain());
  EXPECT_EQ(Node(0).reason(), "");
}

TEST_F(GpuHealthOps, WithholdKeepsTheNodeButNotTheGpu) {
  withhold_ = true;
  StartController();
  ASSERT_TRUE(ctl_->RegisterNode(Registration("node01")).ok());
  RegisterPlain("node02");
  Faults("node01", {"fallen off the bus", ""});
  EXPECT_FALSE(Node(0).drain());
  int64_t a = SubmitGpuJob(1);
  ASSERT_EQ(ctl_->jobs().Find(a)->state(), JOB_RUNNING);
  EXPECT_EQ(ctl_->jobs().Find(a)->alloc(0).node(), "node01");
  EXPECT_EQ(ctl_->jobs().Find(a)->alloc(0).gpu_ids(0), 1);  // not the failed GPU 0
  int64_t b = SubmitGpuJob(2);                              // node01 has one good GPU: node02
  EXPECT_EQ(ctl_->jobs().Find(b)->alloc(0).node(), "node02");
}

}  // namespace
}  // namespace sluice::ctld
