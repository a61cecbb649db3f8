// `sluice why` and Explanation= through the real commands on a local cluster: a job that
// waits for GPUs names the job whose end starts it and the nodes planned for it
// (SchedNodeList=), a held job says how to release it, a dependent job names the job it
// waits for and that job's state.
#include <unistd.h>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class WhyTest : public ClusterTest {
 protected:
  // `sluice why ID` once the job's explanation contains `want` (or the last output).
  std::string WaitWhy(int64_t job, const std::string& want, int timeout_ms = 20'000) {
    std::string last;
    for (int waited = 0; waited < timeout_ms; waited += 100) {
      RunResult r = Run({"sluice", "why", std::to_string(job)});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      last = r.out;
      if (last.find(want) != std::string::npos) return last;
      usleep(100'000);
    }
    return last;
  }
};

TEST_F(WhyTest, PendingJobsSayWhatTheyWaitFor) {
  const int64_t big = Submit({"-N4", "--gres=gpu:8", "-t", "10", "--wrap", "sleep 300"});
  ASSERT_EQ(WaitState(big, {"RUNNING"}), "RUNNING");
  const int64_t next = Submit({"-N2", "--gres=gpu:8", "-t", "5", "--wrap", "true"});
  const std::string ends = "when job " + std::to_string(big) + " ends";
  std::string why = WaitWhy(next, ends);
  EXPECT_NE(why.find("is PENDING (Resources): needs 2 nodes with 8 free GPUs each (16 GPUs); "
                     "0 GPUs are idle now and 0 nodes have room for it; planned start "),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(" min) " + ends), std::string::npos) << why;  // 9 or 10: rounded up
  RunResult show = Run({"scontrol", "show", "job", std::to_string(next)});
  EXPECT_NE(show.out.find("   Explanation=needs 2 nodes"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("   SchedNodeList=node[01-02]\n"), std::string::npos) << show.out;

  const int64_t held = Submit({"--hold", "--wrap", "true"});
  EXPECT_EQ(WaitWhy(held, "held"), "Job " + std::to_string(held) +
                                       " (wrap) is PENDING (JobHeldUser): held by its user: "
                                       "`scontrol release " +
                                       std::to_string(held) + "` lets it run\n");
  const int64_t after = Submit({"--dependency=afterok:" + std::to_string(big), "--wrap", "true"});
  why = WaitWhy(after, "dependency");
  EXPECT_NE(why.find("(Dependency): waiting for its dependency: afterok:" + std::to_string(big) +
                     " (" + std::to_string(big) + " RUNNING)"),
            std::string::npos)
      << why;

  RunResult running = Run({"sluice", "why", std::to_string(big)});
  EXPECT_EQ(
      running.out.find("Job " + std::to_string(big) + " (wrap) is RUNNING on node[01-04] since "),
      0u)
      << running.out;
  RunResult unknown = Run({"sluice", "why", "999999"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "sluice: error: Invalid job id specified\n");
  Run({"scancel", std::to_string(big), std::to_string(held), std::to_string(after),
       std::to_string(next)});
}

}  // namespace
}  // namespace sluice::testing
