// Test-only: a Controller on an in-memory state store with a fake agent link and a
// first-fit scheduler, for the controller's unit tests (no SQLite, no gRPC).
// StartController() is a restart (a new instance on the same store; nodes must register
// again).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "storage/memory_state_store.h"

namespace sluice::ctld::testing {

// `names` nodes of 4 CPUs and 1000 MB, all in the default partition `partition`.
inline Config SmallCluster(const std::vector<std::string>& names, const std::string& partition) {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
  for (const std::string& name : names) {
    NodeConfig n;
    n.name = name;
    n.cpus = 4;
    n.real_memory_mb = 1000;
    c.nodes.push_back(n);
  }
  PartitionConfig p;
  p.name = partition;
  p.nodes = names;
  p.is_default = true;
  c.partitions.push_back(p);
  return c;
}

// The registration of one of SmallCluster's nodes, empty (4 CPUs, 1000 MB).
inline RegisterNodeRequest EmptyNode(const std::string& name) {
  RegisterNodeRequest r;
  r.set_node(name);
  r.set_cpus(4);
  r.set_real_memory_mb(1000);
  return r;
}

class ControllerHarness : public ::testing::Test {
 protected:
  explicit ControllerHarness(int64_t now = 1'700'000'000) : clock_(now) {}

  virtual Config MakeConfig() const = 0;
  // Users are "root" (uid 0) and "u<uid>", groups "g<gid>".
  virtual ControllerOptions MakeOptions() const {
    ControllerOptions o;
    o.user_name = [](uint32_t uid) {
      return uid == 0 ? std::string("root") : "u" + std::to_string(uid);
    };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    return o;
  }

  void SetUp() override {
    char tmpl[] = "/tmp/sluice-ctld-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    StartController();
    for (const NodeConfig& n : MakeConfig().nodes) Register(n.name);
  }
  void TearDown() override {
    ctl_.reset();
    std::filesystem::remove_all(dir_);
  }
  void StartController() {
    ctl_.reset();
    ctl_ = std::make_unique<Controller>(MakeConfig(), &clock_, &store_, &link_,
                                        SchedDeps{&sched_, FakeFeasible}, MakeOptions());
    ASSERT_TRUE(ctl_->Load(false).ok());
  }
  // Registers `node` empty (4 CPUs, 1000 MB) and commits.
  void Register(const std::string& node) {
    ASSERT_TRUE(ctl_->RegisterNode(EmptyNode(node)).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  // Submits a one-CPU batch job as uid 1000 and runs a scheduling pass; returns its id.
  int64_t SubmitAndStart() {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    auto rep = ctl_->Submit({1000, 1000}, r);
    EXPECT_TRUE(rep.ok());
    EXPECT_TRUE(ctl_->Commit().ok());
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }

  std::string dir_;
  ManualClock clock_;
  FakeAgentLink link_;
  FirstFitScheduler sched_;
  storage::MemoryStateStore store_;
  std::unique_ptr<Controller> ctl_;
};

}  // namespace sluice::ctld::testing
