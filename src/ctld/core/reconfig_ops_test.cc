// Controller::ApplyConfig (scontrol reconfigure): nodes and partitions added, changed and
// removed live, running jobs keeping what they hold; a change that would cut into running
// work (a busy node removed or resized, a partition with jobs removed, a reservation's
// node taken away) is refused whole, naming the conflict.
#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;

class ReconfigOpsTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override { return testing::SmallCluster({"node01", "node02"}, "gpu"); }

  Status Apply(const Config& next) { return ctl_->ApplyConfig(next, &sched_); }
  static std::string Msg(const Status& s) { return s.ok() ? "ok" : s.message(); }

  int64_t Submit(const std::string& partition, bool hold = false) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_partition(partition);
    r.mutable_spec()->set_hold(hold);
    auto rep = ctl_->Submit({kAlice, kAlice}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }
  void Pass() {
    ctl_->SchedulePass();
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  JobInfo Job(int64_t id) {
    GetJobsRequest req;
    req.add_job_ids(id);
    auto rep = ctl_->GetJobs(req);
    EXPECT_TRUE(rep.ok() && rep->jobs_size() == 1);
    return rep.ok() && rep->jobs_size() == 1 ? rep->jobs(0) : JobInfo();
  }
  NodeInfo Node(const std::string& name) {
    GetNodesRequest req;
    req.add_names(name);
    auto rep = ctl_->GetNodes(req);
    EXPECT_TRUE(rep.ok() && rep->nodes_size() == 1) << name;
    return rep.ok() && rep->nodes_size() == 1 ? rep->nodes(0) : NodeInfo();
  }
  std::vector<std::string> NodeNames() {
    auto rep = ctl_->GetNodes({});
    std::vector<std::string> out;
    if (rep.ok())
      for (const NodeInfo& n : rep->nodes()) out.push_back(n.name());
    return out;
  }
  static NodeConfig NodeNamed(const std::string& name, int cpus = 4) {
    NodeConfig n;
    n.name = name;
    n.cpus = cpus;
    n.real_memory_mb = 1000;
    return n;
  }
};

TEST_F(ReconfigOpsTest, ANodeAndAPartitionAddedTakeJobsOnceTheNodeRegisters) {
  Config next = MakeConfig();
  next.nodes.push_back(NodeNamed("node03"));
  PartitionConfig big;
  big.name = "big";
  big.nodes = {"node03"};
  next.partitions.push_back(big);
  ASSERT_EQ(Msg(Apply(next)), "ok");
  EXPECT_EQ(NodeNames(), (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_EQ(Node("node03").state(), NODE_UNKNOWN);
  const int64_t job = Submit("big");
  Pass();
  EXPECT_EQ(Job(job).state(), JOB_PENDING);  // no agent on node03 yet
  Register("node03");
  Pass();
  ASSERT_EQ(Job(job).state(), JOB_RUNNING);
  EXPECT_EQ(Job(job).alloc(0).node(), "node03");
}

TEST_F(ReconfigOpsTest, ARunningJobKeepsWhatItHoldsAndAKeptNodeItsState) {
  const int64_t job = SubmitAndStart();
  ASSERT_EQ(Job(job).state(), JOB_RUNNING);
  const std::string host = Job(job).alloc(0).node();
  Config next = MakeConfig();
  for (NodeConfig& n : next.nodes) n.features = {"fast"};  // not a resource change
  ASSERT_EQ(Msg(Apply(next)), "ok");
  const NodeInfo after = Node(host);
  EXPECT_EQ(after.alloc_cpus(), 1);
  EXPECT_EQ(after.state(), NODE_MIXED);  // still registered, and busy
  EXPECT_EQ(after.features(0), "fast");
  EXPECT_TRUE(link_.reregisters.empty());
  EXPECT_EQ(Job(job).state(), JOB_RUNNING);
}

TEST_F(ReconfigOpsTest, ABusyNodeIsNeitherRemovedNorResizedAndNothingChanges) {
  const int64_t job = SubmitAndStart();
  const std::string host = Job(job).alloc(0).node();
  const std::string other = host == "node01" ? "node02" : "node01";
  Config removed = testing::SmallCluster({other}, "gpu");
  EXPECT_EQ(Msg(Apply(removed)),
            "nothing was changed: the new configuration would cut into running work:\n  node " +
                host + " is removed but runs job(s) " + std::to_string(job) +
                ": drain it and let them end (or `sluice nodes requeue " + host + "`) first");
  Config resized = MakeConfig();
  resized.nodes[host == "node01" ? 0 : 1].cpus = 8;
  resized.partitions[0].up = false;  // with a change that alone would apply
  EXPECT_EQ(Msg(Apply(resized)),
            "nothing was changed: the new configuration would cut into running work:\n  node " +
                host + " changes its CPUs, memory or GPUs while it runs job(s) " +
                std::to_string(job) + ": drain it and let them end first");
  EXPECT_EQ(NodeNames(), (std::vector<std::string>{"node01", "node02"}));
  EXPECT_EQ(Node(host).cpus(), 4);
  const int64_t next_job = Submit("gpu");
  Pass();
  EXPECT_EQ(Job(next_job).state(), JOB_RUNNING);  // the partition stayed up
}

TEST_F(ReconfigOpsTest, AnIdleNodeResizedMustRegisterAgainAndIsCheckedThen) {
  Config next = MakeConfig();
  next.nodes[1].cpus = 8;
  ASSERT_EQ(Msg(Apply(next)), "ok");
  EXPECT_EQ(link_.reregisters, (std::vector<std::string>{"node02@"}));
  EXPECT_EQ(Node("node02").state(), NODE_UNKNOWN);
  EXPECT_EQ(Node("node01").state(), NODE_IDLE);
  Register("node02");  // its agent reports 4 CPUs: fewer than the 8 configured
  EXPECT_TRUE(Node("node02").drain());
  EXPECT_EQ(Node("node02").reason(), "Low socket*core*thread count");
}

TEST_F(ReconfigOpsTest, APartitionWithJobsStaysUntilTheyEndAndItsChangesApplyLive) {
  Config two = MakeConfig();
  PartitionConfig extra = two.partitions[0];
  extra.name = "extra";
  extra.is_default = false;
  two.partitions.push_back(extra);
  ASSERT_EQ(Msg(Apply(two)), "ok");
  const int64_t held = Submit("extra", /*hold=*/true);
  EXPECT_EQ(Msg(Apply(MakeConfig())),
            "nothing was changed: the new configuration would cut into running work:\n  "
            "partition extra is removed but job(s) " +
                std::to_string(held) + " are pending or running in it");
  // Taken down live: its pending job waits with the reason.
  two.partitions[1].up = false;
  ASSERT_EQ(Msg(Apply(two)), "ok");
  UpdateJobRequest release;
  release.add_job_ids(held);
  release.set_action(JOB_ACTION_RELEASE);
  ASSERT_EQ(Msg(ctl_->UpdateJob({kAlice, kAlice}, release)), "ok");
  Pass();
  EXPECT_EQ(Job(held).state(), JOB_PENDING);
  EXPECT_EQ(Job(held).reason(), "PartitionDown");
  CancelRequest cancel;
  cancel.add_job_ids(held);
  ctl_->Cancel({kAlice, kAlice}, cancel);
  EXPECT_EQ(Msg(Apply(MakeConfig())), "ok");
}

TEST_F(ReconfigOpsTest, AReservationKeepsItsNodesInTheConfigurationAndItsPartition) {
  ReservationRequest create;
  create.set_action(RESV_CREATE);
  for (const char* a : {"ReservationName=maint", "StartTime=now+1hour", "Duration=60",
                        "Nodes=node02", "Users=root", "PartitionName=gpu"})
    create.add_args(a);
  ASSERT_TRUE(ctl_->Reservation({0, 0}, create).ok());
  EXPECT_EQ(Msg(Apply(testing::SmallCluster({"node01"}, "gpu"))),
            "nothing was changed: the new configuration would cut into running work:\n  "
            "node node02 is removed but reservation maint holds it");
  Config shrunk = MakeConfig();
  shrunk.partitions[0].nodes = {"node01"};
  EXPECT_EQ(Msg(Apply(shrunk)),
            "nothing was changed: the new configuration would cut into running work:\n  "
            "partition gpu no longer has node node02, which reservation maint holds in it");
  EXPECT_EQ(NodeNames(), (std::vector<std::string>{"node01", "node02"}));
}

}  // namespace
}  // namespace sluice::ctld
