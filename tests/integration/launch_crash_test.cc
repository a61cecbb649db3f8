// A job runs once even when its batch host's agent dies between starting the job's
// stepd and answering the controller's LaunchJob (the test-only agent build
// sluiced-faults, armed by a file): the controller does not know whether the run started,
// so it must not start it elsewhere; the restarted agent reports the run and it goes on.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {
namespace {

class LaunchCrash : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    UseFaultBuilds(&o);
    o.slurmd_timeout_s = 30;  // the agent comes back well within it
    return o;
  }
  std::string Armed(int i) const {
    return fault_dir() + "/die-after-spawn." + cluster_->NodeName(i);
  }
};

TEST_F(LaunchCrash, AgentKilledBetweenStepdStartAndAnswerRunsTheJobOnce) {
  std::ofstream(work_dir() + "/job.sh")
      << "#!/bin/bash\necho \"S $SLURMD_NODENAME ${SLURM_RESTART_COUNT:-0}\" >> runs.log\n"
         "sleep 4\necho \"E $SLURMD_NODENAME ${SLURM_RESTART_COUNT:-0}\" >> runs.log\n";
  for (int i = 0; i < 4; ++i) std::ofstream(Armed(i)) << "armed\n";
  int64_t id = Submit({"-o", "/dev/null", "job.sh"});
  ASSERT_GT(id, 0);
  int died = -1;
  int64_t deadline = RealClock::MonotonicMs() + 20'000;
  while (died < 0 && RealClock::MonotonicMs() < deadline) {
    for (int i = 0; i < 4 && died < 0; ++i) {
      if (!fs::exists(Armed(i))) died = i;
    }
    usleep(20'000);
  }
  ASSERT_GE(died, 0) << "no agent took the launch";
  for (int i = 0; i < 4; ++i) fs::remove(Armed(i));
  // Time for a wrong requeue to show (it used to start the job elsewhere within 150 ms).
  usleep(1'500'000);
  EXPECT_EQ(State(id), "RUNNING");
  ASSERT_TRUE(cluster_->StartAgent(died).ok());
  EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED");
  std::string runs = ReadFile("runs.log");
  std::string node = cluster_->NodeName(died);
  EXPECT_EQ(runs, "S " + node + " 0\nE " + node + " 0\n");
  auto show = Run({"scontrol", "show", "job", std::to_string(id)});
  EXPECT_NE(show.out.find("Restarts=0"), std::string::npos) << show.out;
}

}  // namespace
}  // namespace sluice::testing
