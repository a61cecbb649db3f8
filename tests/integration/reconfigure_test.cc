// scontrol reconfigure and SIGHUP on a running controller: scheduler, node and partition
// changes are applied at once and shown; a wrong file, a change that needs a restart or
// one that would cut into running work applies nothing, says why (file:line; the changes;
// the conflict) and leaves the controller as it was, jobs running.
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
  // SlurmdTimeout needs a restart: nothing is applied, not even the live part.
  Rewrite(original_ + "SlurmdTimeout=99\nSlurmctldDebug=debug\n");
  RunResult restart = Run({"scontrol", "reconfigure"});
  EXPECT_EQ(restart.exit_code, 1);
  EXPECT_EQ(restart.err,
            "slurm_reconfigure error: nothing was changed: these changes need sluicectld "
            "restarted (running jobs keep running):\n  SlurmdTimeout: " +
                std::to_string(Options().slurmd_timeout_s) + " -> 99\n");
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

// The file without node `name` (its NodeName line, and in the partition).
std::string Without(const std::string& conf, const std::string& name, const std::string& other) {
  std::istringstream in(conf);
  std::string out;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("NodeName=" + name + " ", 0) == 0) continue;
    if (auto at = l.find("Nodes=node[01-02]"); at != std::string::npos)
      l.replace(at, 17, "Nodes=" + other);
    out += l + "\n";
  }
  return out;
}

TEST_F(Reconfigure, NodesAndPartitionsChangeLiveAroundRunningWork) {
  const int64_t running = Submit({"-o", "/dev/null", "-w", "node01", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(running, {"RUNNING"}), "RUNNING");
  // The busy node cannot go: refused whole, naming the job.
  Rewrite(Without(original_, "node01", "node02"));
  RunResult busy = Run({"scontrol", "reconfigure"});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_EQ(busy.err,
            "slurm_reconfigure error: nothing was changed: the new configuration would cut into "
            "running work:\n  node node01 is removed but runs job(s) " +
                std::to_string(running) +
                ": drain it and let them end (or `sluice nodes requeue node01`) first\n");
  // The idle one goes, and a partition comes, at once.
  Rewrite(Without(original_, "node02", "node01") +
          "PartitionName=debug Nodes=node01 MaxTime=5 State=UP\n");
  RunResult removed = Run({"scontrol", "reconfigure"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(removed.out,
            "reconfigured node node02 removed\nreconfigured partition debug added\n"
            "reconfigured partition gpu changed\n");
  EXPECT_EQ(Run({"sinfo", "-h", "-o", "%P %N"}).out, "gpu* node01\ndebug node01\n");
  EXPECT_EQ(WaitDone(Submit({"-o", "/dev/null", "-p", "debug", "--wrap", "true"})), "COMPLETED");
  // node02 back: its agent, refused meanwhile, registers again and takes jobs.
  Rewrite(original_);
  RunResult back = Run({"scontrol", "reconfigure"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out,
            "reconfigured node node02 added\nreconfigured partition gpu changed\n"
            "reconfigured partition debug removed\n");
  EXPECT_EQ(WaitDone(Submit({"-o", "/dev/null", "-w", "node02", "--wrap", "true"})),
            "COMPLETED");
  EXPECT_EQ(State(running), "RUNNING");
}

}  // namespace
}  // namespace sluice::testing
