// End-to-end multifactor priority: weights from the config, sprio output for pending
// jobs, sshare, and the scheduler taking pending jobs in priority order (not job id).
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Priority : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines = {"PriorityType=priority/multifactor", "PriorityWeightFairshare=10000",
                            "PriorityDecayHalfLife=1-0", "TRESBillingWeights=CPU=1.0,GRES/gpu=4.0"};
    return o;
  }
  // Polls sprio until it prints `want` (priorities are recomputed by scheduling passes).
  std::string WaitSprio(std::vector<std::string> args, const std::string& want) {
    std::string last;
    for (int i = 0; i < 100; ++i) {
      args.insert(args.begin(), "sprio");
      RunResult r = Run(args);
      args.erase(args.begin());
      last = r.out + r.err;
      if (r.out == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
  }
};

TEST_F(Priority, SprioShowsFactorsAndHigherPriorityStartsFirst) {
  int64_t blocker = Submit({"-N4", "--exclusive", "--wrap", "sleep 300"});
  ASSERT_EQ(WaitState(blocker, {"RUNNING"}), "RUNNING");
  int64_t niced = Submit({"-N4", "--exclusive", "--nice=500", "--wrap", "sleep 30"});
  int64_t plain = Submit({"-N4", "--exclusive", "--wrap", "sleep 30"});
  auto row = [](int64_t id, int prio) {
    char buf[128];
    snprintf(buf, sizeof(buf), "%15lld %-9s %10d %10d %10d\n", static_cast<long long>(id), "gpu",
             prio, 0, 10000);
    return std::string(buf);
  };
  std::string want = "          JOBID PARTITION   PRIORITY       SITE  FAIRSHARE\n" +
                     row(niced, 9500) + row(plain, 10000);
  EXPECT_EQ(WaitSprio({}, want), want);
  std::string one = row(plain, 10000);
  EXPECT_EQ(WaitSprio({"-h", "-j", std::to_string(plain)}, one), one);

  auto share = Run({"sshare", "-a"});
  EXPECT_EQ(share.exit_code, 0) << share.err;
  EXPECT_EQ(share.out.rfind("Account                    User  RawShares  NormShares", 0), 0u)
      << share.out;
  EXPECT_NE(share.out.find("\nroot "), std::string::npos) << share.out;

  ASSERT_EQ(Run({"scancel", std::to_string(blocker)}).exit_code, 0);
  EXPECT_EQ(WaitState(plain, {"RUNNING", "COMPLETED"}), "RUNNING");
  EXPECT_EQ(State(niced), "PENDING");
  auto reason = Run({"squeue", "-h", "-j", std::to_string(niced), "-o", "%r"});
  EXPECT_EQ(reason.out, "Resources\n");
}

}  // namespace
}  // namespace sluice::testing
