#include "noded/job_tracker.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "node_common/job_dir.h"
#include "node_common/test_util.h"
#include "noded/agent_config.h"

namespace sluice {
namespace {

class JobTrackerTest : public ::testing::Test {
 protected:
  JobTrackerTest() : tracker_(tmp_.path() + "/spool/node1", &clock_) {}
  void SetUp() override { ASSERT_TRUE(tracker_.Init().ok()); }
  BatchLaunch Launch(int64_t id) {
    BatchLaunch l;
    l.set_job_id(id);
    l.mutable_job()->mutable_spec()->set_script("#!/bin/sh\n");
    return l;
  }
  testing::TempDir tmp_;
  RealClock clock_;
  JobTracker tracker_;
};

TEST_F(JobTrackerTest, PhasesFromFiles) {
  ASSERT_TRUE(tracker_.Create(Launch(1)).ok());  // just created: starting
  ASSERT_TRUE(tracker_.Create(Launch(2)).ok());
  JobReport r;
  r.set_job_id(2);
  r.set_finished(true);
  r.set_state(JOB_FAILED);
  r.set_exit_code(3);
  ASSERT_TRUE(WriteProtoFile(JobDir(tracker_.DirFor(2)).StatusFile(), r).ok());
  ASSERT_TRUE(tracker_.Create(Launch(3)).ok());
  ASSERT_TRUE(tracker_.RecordStepdPid(3, 999999).ok());  // no such process: lost
  ASSERT_TRUE(tracker_.Create(Launch(4)).ok());
  ASSERT_TRUE(tracker_.RecordStepdPid(4, ::getpid()).ok());
  {  // a lock file nobody holds: the stepd is gone
    int fd = ::open(JobDir(tracker_.DirFor(4)).LockFile().c_str(), O_CREAT | O_RDWR, 0600);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  ASSERT_TRUE(tracker_.Create(Launch(5)).ok());
  ASSERT_TRUE(WriteProtoFile(JobDir(tracker_.DirFor(5)).StatusFile(), r).ok());
  ASSERT_TRUE(tracker_.MarkDone(5).ok());
  ::mkdir((tracker_.spool() + "/job.x7").c_str(), 0755);  // junk is ignored
  ::mkdir((tracker_.spool() + "/other").c_str(), 0755);

  auto jobs = tracker_.Scan();
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_EQ(jobs[0].phase, TrackedJob::Phase::kRunning);
  EXPECT_EQ(jobs[1].phase, TrackedJob::Phase::kFinished);
  EXPECT_EQ(jobs[1].report.exit_code(), 3);
  EXPECT_EQ(jobs[2].phase, TrackedJob::Phase::kLost);
  EXPECT_EQ(jobs[3].phase, TrackedJob::Phase::kLost);
  EXPECT_EQ(jobs[4].phase, TrackedJob::Phase::kDone);

  ASSERT_TRUE(tracker_.MarkLost(3, /*stepd_started=*/true).ok());
  auto lost = tracker_.Inspect(3);
  ASSERT_TRUE(lost.ok());
  EXPECT_EQ(lost->phase, TrackedJob::Phase::kFinished);
  EXPECT_EQ(lost->report.state(), JOB_FAILED);
  ASSERT_TRUE(tracker_.MarkLost(4, /*stepd_started=*/false).ok());
  EXPECT_EQ(tracker_.Inspect(4)->report.state(), JOB_NODE_FAIL);

  EXPECT_EQ(tracker_.Create(Launch(2)).code(), Code::kAlreadyExists);
  ASSERT_TRUE(tracker_.Remove(2).ok());
  EXPECT_EQ(tracker_.Inspect(2).status().code(), Code::kNotFound);
}

TEST_F(JobTrackerTest, OldLaunchWithoutPidIsLost) {
  ASSERT_TRUE(tracker_.Create(Launch(9)).ok());
  struct timespec times[2] = {{1000, 0}, {1000, 0}};
  ::utimensat(AT_FDCWD, JobDir(tracker_.DirFor(9)).Launch().c_str(), times, 0);
  EXPECT_EQ(tracker_.Inspect(9)->phase, TrackedJob::Phase::kLost);
}

TEST_F(JobTrackerTest, MalformedLaunchIsReportedNotCrashing) {
  ASSERT_TRUE(tracker_.Create(Launch(4)).ok());
  ASSERT_TRUE(WriteFileAtomic(JobDir(tracker_.DirFor(4)).Launch(), "\xff\xfe junk", 0600).ok());
  EXPECT_FALSE(tracker_.ReadLaunch(4).ok());
}

TEST(JobTrackerNames, DirNames) {
  EXPECT_EQ(JobIdFromDirName("job.42"), 42);
  EXPECT_EQ(JobIdFromDirName("job."), 0);
  EXPECT_EQ(JobIdFromDirName("job.4x"), 0);
  EXPECT_EQ(JobIdFromDirName("jobs.4"), 0);
}

TEST(AgentConfigTest, SetupFromConfig) {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
  c.cluster_name = "c1";
  c.slurmd_port = 7000;
  c.slurmd_timeout_s = 300;
  c.state_save_location = "/var/state";
  c.slurmd_spool_dir = "/var/spool/%n/x";
  NodeConfig n;
  n.name = "gpu01";
  n.addr = "10.0.0.5";
  n.cpus = 16;
  n.real_memory_mb = 64000;
  n.gpus = {GpuDef{0, "h100"}, GpuDef{1, "h100"}};
  c.nodes.push_back(n);
  auto s = AgentSetupFromConfig(c, "gpu01");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->options.port, 7000);
  EXPECT_EQ(s->options.addr, "10.0.0.5");
  EXPECT_EQ(s->options.gpus.size(), 2u);
  EXPECT_EQ(s->options.gpus[1].type(), "h100");
  EXPECT_EQ(s->spool_dir, "/var/spool/gpu01/x");
  EXPECT_EQ(s->key_file, "/var/state/cluster.key");
  EXPECT_EQ(s->options.agent_socket, "/var/spool/gpu01/x/agent.sock");
  EXPECT_EQ(s->options.heartbeat_interval_ms, 30000);
  EXPECT_EQ(s->options.conf_path, "/etc/sluice/sluice.conf");
  auto fake = AgentSetupFromConfig(c, "gpu01", 4);
  ASSERT_TRUE(fake.ok());
  EXPECT_EQ(fake->options.gpus.size(), 4u);
  EXPECT_EQ(fake->options.gpus[3].index(), 3);
  EXPECT_EQ(AgentSetupFromConfig(c, "gpu02").status().code(), Code::kNotFound);
  c.cluster_key_file = "/k";
  c.nodes[0].port = 7100;
  EXPECT_EQ(AgentSetupFromConfig(c, "gpu01")->key_file, "/k");
  EXPECT_EQ(AgentSetupFromConfig(c, "gpu01")->options.port, 7100);
}

TEST(AgentConfigTest, HeartbeatInterval) {
  EXPECT_EQ(HeartbeatIntervalMs(5, 300), 5000);
  EXPECT_EQ(HeartbeatIntervalMs(0, 300), 30000);
  EXPECT_EQ(HeartbeatIntervalMs(0, 30), 10000);
  EXPECT_EQ(HeartbeatIntervalMs(0, 1), 1000);
  EXPECT_EQ(HeartbeatIntervalMs(100, 300), 30000);
  EXPECT_EQ(ExpandSpoolDir("/s/%n/%n", "a"), "/s/a/a");
}

}  // namespace
}  // namespace sluice
