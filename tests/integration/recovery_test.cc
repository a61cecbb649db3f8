// Controller crash: kill -9 with 200 jobs queued and some running, restart, and check that
// no acknowledged job is lost, running jobs keep running, and none runs twice. A
// controller down for longer than SlurmdTimeout fences no job (its port refuses, so the
// nodes' leases are renewed), and an srun that starts meanwhile waits for it.
#include <signal.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace sluice::testing {
namespace {

using Recovery = ClusterTest;

TEST_F(Recovery, ControllerKill9LosesNoJobAndRunningJobsFinish) {
  const int kJobs = 200;
  std::vector<int64_t> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back(Submit(
        {"-o", "/dev/null", "--wrap",
         "echo start $SLURM_JOB_ID >> runs.log; sleep 2; echo end $SLURM_JOB_ID >> runs.log"}));
    ASSERT_GT(ids.back(), 0);
  }
  // Wait until some are running, then crash the controller.
  auto running = [&] {
    auto r = Run({"squeue", "-h", "-t", "R", "-o", "%i"});
    return std::count(r.out.begin(), r.out.end(), '\n');
  };
  for (int i = 0; i < 200 && running() == 0; ++i) usleep(20'000);
  ASSERT_GT(running(), 0);
  cluster_->KillController(SIGKILL);
  sleep(1);
  ASSERT_TRUE(cluster_->StartController().ok());
  // Every acknowledged job is still known, and all eventually complete.
  for (auto id : ids) EXPECT_EQ(WaitDone(id, 120'000), "COMPLETED") << "job " << id;
  std::map<std::string, int> starts, ends;
  std::stringstream log(ReadFile("runs.log"));
  std::string what, id;
  while (log >> what >> id) (what == "start" ? starts : ends)[id]++;
  EXPECT_EQ(static_cast<int>(starts.size()), kJobs);
  for (const auto& [job, n] : starts)
    EXPECT_EQ(n, 1) << "job " << job << " started " << n << " times";
  for (const auto& [job, n] : ends) EXPECT_EQ(n, 1) << "job " << job << " ended " << n << " times";
  EXPECT_EQ(static_cast<int>(ends.size()), kJobs);
}

class ControllerDown : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.slurmd_timeout_s = 4;
    return o;
  }
};

TEST_F(ControllerDown, LongerThanSlurmdTimeoutFencesNothingAndSrunWaitsForIt) {
  int64_t job = Submit(
      {"-N2", "-o", "out.txt", "--wrap",
       "export PATH=" + BinDir() +
           ":$PATH; echo run ${SLURM_RESTART_COUNT:-0} >> runs.log; "
           "srun -N2 bash -c 'echo before $SLURM_PROCID; sleep 8; echo after $SLURM_PROCID' & "
           "while [ ! -e go ]; do sleep 0.1; done; srun -N1 echo step while the controller was "
           "down; wait"});
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  int64_t deadline = RealClock::MonotonicMs() + 10'000;
  while (ReadFile("out.txt").find("before 1") == std::string::npos &&
         RealClock::MonotonicMs() < deadline) {
    usleep(50'000);
  }
  ASSERT_NE(ReadFile("out.txt").find("before 1"), std::string::npos) << ReadFile("out.txt");
  cluster_->KillController(SIGKILL);
  WriteFile("go", "");  // the second srun starts now
  sleep(6);             // past SlurmdTimeout (4 s) and every node lease
  ASSERT_TRUE(cluster_->StartController().ok());
  EXPECT_EQ(WaitDone(job, 60'000), "COMPLETED") << ReadFile("out.txt");
  std::string out = ReadFile("out.txt");
  EXPECT_NE(out.find("after 0"), std::string::npos) << out;
  EXPECT_NE(out.find("after 1"), std::string::npos) << out;
  EXPECT_NE(out.find("step while the controller was down"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: error: Unable to contact slurm controller (connect failure), retrying"),
            std::string::npos)
      << out;
  EXPECT_EQ(ReadFile("runs.log"), "run 0\n") << "the job was fenced and ran again";
}

}  // namespace
}  // namespace sluice::testing
