// Controller crash: kill -9 with 200 jobs queued and some running, restart, and check that
// no acknowledged job is lost, running jobs keep running, and none runs twice.
#include <signal.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using Recovery = ClusterTest;

TEST_F(Recovery, ControllerKill9LosesNoJobAndRunningJobsFinish) {
  const int kJobs = 200;
  std::vector<int64_t> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back(Submit({"-o", "/dev/null", "--wrap",
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
  for (const auto& [job, n] : starts) EXPECT_EQ(n, 1) << "job " << job << " started " << n << " times";
  for (const auto& [job, n] : ends) EXPECT_EQ(n, 1) << "job " << job << " ended " << n << " times";
  EXPECT_EQ(static_cast<int>(ends.size()), kJobs);
}

}  // namespace
}  // namespace sluice::testing
