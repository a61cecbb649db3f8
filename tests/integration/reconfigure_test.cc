// scontrol reconfigure and SIGHUP on a running controller: a scheduler change is applied
// at once and shown; a wrong file or a change that needs a restart applies nothing, says
// why (file:line; the changes) and leaves the controller as it was, jobs running.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Reconfigure : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 2;
    return o;
  }
  void SetUp() override {
    ClusterTest::SetUp();
    if (!HasFatalFailure()) original_ = ReadFile(cluster_->conf_path());
  }
  void Rewrite(const std::string& text) {
    WriteFile("next.conf", text);
    std::filesystem::rename(work_dir() + "/next.conf", cluster_->conf_path());
  }
  std::string ShownParams() {
    std::istringstream out(Run({"scontrol", "show", "config"}).out);
    for (std::string l; std::getline(out, l);)
      if (l.rfind("SchedulerParameters", 0) == 0) return l;
    return "";
  }
  std::string original_;
};

TEST_F(Reconfigure, SchedulerChangesApplyLiveOthersAreRefusedWithTheirReasons) {
  const int64_t running = Submit({"-o", "/dev/null", "--wrap", "sleep 30"});
  ASSERT_EQ(WaitState(running, {"RUNNING"}), "RUNNING");
  Rewrite(original_ + "SchedulerParameters=bf_window=60,bf_predict=user2\n");
  RunResult ok = Run({"scontrol", "reconfigure"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "reconfigured SchedulerParameters: (unset) -> bf_window=60,bf_predict=user2\n");
  EXPECT_NE(ShownParams().find("bf_window=60,bf_predict=user2"), std::string::npos)
      << ShownParams();
  EXPECT_EQ(Run({"scontrol", "reconfigure"}).out, "configuration unchanged\n");
  // A wrong value: refused with its line; the running configuration stays.
  const std::string bad = original_ + "SchedulerParameters=bf_window=soon\n";
  Rewrite(bad);
  RunResult wrong = Run({"scontrol", "reconfigure"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_EQ(wrong.err, "slurm_reconfigure error: " + cluster_->conf_path() + ":" +
                           std::to_string(std::count(bad.begin(), bad.end(), '\n')) +
                           ": SchedulerParameters: bad value in 'bf_window=soon'\n");
  EXPECT_NE(ShownParams().find("bf_window=60,bf_predict=user2"), std::string::npos);
  // A new node and another key need a restart: nothing is applied, not even the live part.
  Rewrite(original_ + "KillWait=7\nSlurmctldDebug=debug\n" +
          "NodeName=node09 NodeAddr=127.0.0.1 Port=1 CPUs=4 RealMemory=1000 State=UNKNOWN\n");
  RunResult restart = Run({"scontrol", "reconfigure"});
  EXPECT_EQ(restart.exit_code, 1);
  EXPECT_EQ(restart.err,
            "slurm_reconfigure error: nothing was changed: these changes need sluicectld "
            "restarted (running jobs keep running):\n  KillWait: " +
                std::to_string(Options().kill_wait_s) + " -> 7\n  node node09 added\n");
  EXPECT_NE(ShownParams().find("bf_window=60,bf_predict=user2"), std::string::npos);
  // SIGHUP does the same as scontrol reconfigure: back to the original file.
  Rewrite(original_);
  ASSERT_GT(cluster_->ControllerPid(0), 0);
  ASSERT_EQ(::kill(cluster_->ControllerPid(0), SIGHUP), 0);
  std::string shown;
  for (int i = 0; i < 100; ++i) {
    shown = ShownParams();
    if (shown.find("bf_window") == std::string::npos) break;
    usleep(50'000);
  }
  EXPECT_EQ(shown.find("bf_window"), std::string::npos) << shown;
  EXPECT_NE(ReadFile(cluster_->state_dir() + "/log/sluicectld.log")
                .find("reconfigured SchedulerParameters: bf_window=60,bf_predict=user2 -> "
                      "(unset)"),
            std::string::npos);
  // The job ran through all of it, and new ones are scheduled.
  EXPECT_EQ(State(running), "RUNNING");
  EXPECT_EQ(WaitDone(Submit({"-o", "/dev/null", "--wrap", "true"})), "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
