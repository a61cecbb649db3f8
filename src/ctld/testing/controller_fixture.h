// Test-only: ControllerTest, a Controller on a real SQLite state store (in a temp dir)
// with a fake agent link and a first-fit scheduler, two registered-on-demand nodes of 4
// CPUs and 2 GPUs, for the controller's job and step tests (controller_test.cc,
// step_ops_test.cc). Reopen() is a restart on the same store.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "storage/sqlite_state_store.h"

namespace sluice::ctld::testing {

inline constexpr uint32_t kAlice = 1000;
inline constexpr uint32_t kBob = 1001;

inline Config TestConfig() {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
  c.slurmd_timeout_s = 300;
  for (const char* name : {"node01", "node02"}) {
    NodeConfig n;
    n.name = name;
    n.cpus = 4;
    n.real_memory_mb = 1000;
    for (int i = 0; i < 2; ++i) n.gpus.push_back({i, "h100", "", "", ""});
    c.nodes.push_back(n);
  }
  PartitionConfig p;
  p.name = "gpu";
  p.nodes = {"node01", "node02"};
  p.is_default = true;
  p.max_time_min = 60;
  c.partitions.push_back(p);
  PartitionConfig d = p;
  d.name = "closed";
  d.is_default = false;
  d.up = false;
  c.partitions.push_back(d);
  return c;
}

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-ctld-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Reopen();
  }
  void TearDown() override {
    ctl_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Reopen(bool clean = false) {
    ctl_.reset();
    store_.reset();
    store_ = std::move(storage::SqliteStateStore::Open(dir_ + "/state.db")).value();
    ControllerOptions o;
    o.admin_uid = 0;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    ctl_ = std::make_unique<Controller>(TestConfig(), &clock_, store_.get(), &link_,
                                        SchedDeps{&sched_, FakeFeasible}, o);
    ASSERT_TRUE(ctl_->Load(clean).ok());
  }

  void EndStep(int64_t job_id, int step_id) {  // srun reports the step's end
    KeepaliveRequest ended;
    ended.set_job_id(job_id);
    ended.add_ended_step_ids(step_id);
    ASSERT_TRUE(ctl_->Keepalive({kAlice, kAlice}, ended).ok());
  }

  void RegisterAll() {
    for (const char* n : {"node01", "node02"}) {
      RegisterNodeRequest r;
      r.set_node(n);
      r.set_cpus(4);
      r.set_real_memory_mb(1000);
      for (int i = 0; i < 2; ++i) r.add_gpus()->set_index(i);
      ASSERT_TRUE(ctl_->RegisterNode(r).ok());
    }
    ASSERT_TRUE(ctl_->Commit().ok());
  }
  // Registers both nodes and starts Alice's job on both (2 GPUs each); returns its id.
  int64_t StartOnBothNodes(int tasks_per_node = 0) {
    RegisterAll();
    SubmitRequest r = Req(2);
    r.mutable_spec()->set_min_nodes(2);
    if (tasks_per_node) r.mutable_spec()->set_ntasks_per_node(tasks_per_node);
    int64_t id = Submit(kAlice, r);
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    return id;
  }

  static SubmitRequest Req(int gpus = 0) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/home/alice");
    if (gpus) {
      auto* g = r.mutable_spec()->add_gres_per_node();
      g->set_name("gpu");
      g->set_count(gpus);
    }
    return r;
  }

  int64_t Submit(uint32_t uid = kAlice, SubmitRequest r = Req()) {
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : -1;
  }

  const JobInfo& Job(int64_t id) { return *ctl_->jobs().Find(id); }

  void EndJob(int64_t id, int exit_code, JobState st = JOB_STATE_UNSPECIFIED) {
    JobEndedRequest e;
    e.set_node(Job(id).alloc(0).node());
    e.mutable_report()->set_job_id(id);
    e.mutable_report()->set_finished(true);
    e.mutable_report()->set_exit_code(exit_code);
    e.mutable_report()->set_state(st);
    ASSERT_TRUE(ctl_->JobEnded(e).ok());
    ASSERT_TRUE(ctl_->Commit().ok());
  }

  int64_t StartOne(uint32_t uid = kAlice, SubmitRequest r = Req()) {
    int64_t id = Submit(uid, r);
    ctl_->SchedulePass();
    EXPECT_TRUE(ctl_->Commit().ok());
    EXPECT_EQ(Job(id).state(), JOB_RUNNING);
    return id;
  }

  std::string dir_;
  ManualClock clock_{1'700'000'000};
  FakeAgentLink link_;
  FirstFitScheduler sched_;
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<Controller> ctl_;
};

}  // namespace sluice::ctld::testing
