// Node loss and requeue on a real controller + 4 agents: a node's agent and job
// processes killed -> the job is requeued and restarts elsewhere (SLURM_RESTART_COUNT,
// appended output), --no-requeue -> NODE_FAIL with the survivors killed, scontrol
// requeue / requeuehold / release, RequeueExit / RequeueExitHold, self-requeue from a
// --signal=B:USR1 trap (submitit) and from rank 0 of an srun step (Lightning: scontrol
// reports the result although the requeue SIGTERMs it too), scancel --signal scopes.
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "cluster_fixture.h"
#include "local/node_kill.h"

namespace sluice::testing {
namespace {

class Requeue : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.slurmd_timeout_s = 4;
    o.kill_wait_s = 2;
    o.extra_config_lines = {"RequeueExit=42", "RequeueExitHold=43", "MaxBatchRequeue=3"};
    return o;
  }

  // Polls `path` until it contains `text` (true) or the deadline passes.
  bool WaitFileHas(const std::string& path, const std::string& text, int timeout_ms = 20'000) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
      if (ReadFile(path).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string Reason(int64_t id) {
    return Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%r"}).out;
  }

  int Count(const std::string& s, const std::string& what) {
    int n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  }
};

// Run 0 waits forever; later runs finish.
const char kRestartScript[] =
    "echo run ${SLURM_RESTART_COUNT:-0} on $SLURMD_NODENAME; "
    "[ ${SLURM_RESTART_COUNT:-0} -ge 1 ] || sleep 300";

TEST_F(Requeue, NodeDeathRequeuesAndTheRerunAppendsItsOutput) {
  int64_t id = Submit({"-o", "r-%j.out", "--wrap", kRestartScript});
  std::string out = "r-" + std::to_string(id) + ".out";
  ASSERT_TRUE(WaitFileHas(out, "run 0 on node01\n"));
  ASSERT_GT(KillNodeProcesses(*cluster_, 0), 0);
  EXPECT_EQ(WaitDone(id, 30'000), "COMPLETED");
  EXPECT_EQ(ReadFile(out), "run 0 on node01\nrun 1 on node02\n");
  auto show = Run({"scontrol", "show", "job", std::to_string(id)});
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  auto node = Run({"sinfo", "-h", "-n", "node01", "-o", "%T"});
  EXPECT_EQ(node.out, "down*\n");
}

TEST_F(Requeue, NoRequeueEndsNodeFailAndKillsTheSurvivors) {
  std::string pidfile = work_dir() + "/batch.pid";
  int64_t id = Submit({"--no-requeue", "-N", "2", "-o", "/dev/null", "--wrap",
                       "echo $$ > " + pidfile + "; sleep 300"});
  ASSERT_TRUE(WaitFileHas(pidfile, "\n"));
  pid_t batch = std::stoi(ReadFile(pidfile));
  ASSERT_EQ(kill(batch, 0), 0);
  KillNodeProcesses(*cluster_, 1);  // node02: the batch shell on node01 survives it
  EXPECT_EQ(WaitDone(id, 30'000), "NODE_FAIL");
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = kill(batch, 0) != 0;
    if (!gone) usleep(50'000);
  }
  EXPECT_TRUE(gone) << "batch shell " << batch << " survived the loss of its job's node";
}

TEST_F(Requeue, ScontrolRequeueRequeueHoldAndRelease) {
  int64_t id = Submit({"-o", "q.out", "--wrap",
                       "echo run ${SLURM_RESTART_COUNT:-0}; "
                       "[ ${SLURM_RESTART_COUNT:-0} -ge 2 ] || sleep 300"});
  std::string sid = std::to_string(id);
  ASSERT_TRUE(WaitFileHas("q.out", "run 0\n"));
  ASSERT_EQ(Run({"scontrol", "requeue", sid}).exit_code, 0);
  ASSERT_TRUE(WaitFileHas("q.out", "run 1\n"));
  auto rh = Run({"scontrol", "requeuehold", sid});
  ASSERT_EQ(rh.exit_code, 0) << rh.err;
  ASSERT_EQ(WaitState(id, {"PENDING"}), "PENDING");
  EXPECT_EQ(Reason(id), "JobHeldUser\n");
  auto again = Run({"scontrol", "requeue", sid});  // pending: Slurm's refusal
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("slurm_requeue error: "), std::string::npos) << again.err;
  ASSERT_EQ(Run({"scontrol", "release", sid}).exit_code, 0);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile("q.out"), "run 0\nrun 1\nrun 2\n");
}

TEST_F(Requeue, RequeueExitAndRequeueExitHold) {
  int64_t id = Submit(
      {"-o", "x.out", "--wrap",
       "echo run ${SLURM_RESTART_COUNT:-0}; [ ${SLURM_RESTART_COUNT:-0} -ge 1 ] || exit 42"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile("x.out"), "run 0\nrun 1\n");
  int64_t held = Submit({"-o", "/dev/null", "--wrap", "exit 43"});
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Reason(held) != "JobHeldUser\n" && std::chrono::steady_clock::now() < end) usleep(100'000);
  EXPECT_EQ(Reason(held), "JobHeldUser\n");
  EXPECT_EQ(State(held), "PENDING");
  Run({"scancel", std::to_string(held)});
}

std::optional<TestUser> RootTestUser(const char* name) {
  if (geteuid() != 0) return std::nullopt;
  return EnsureTestUser(name);
}

TEST_F(Requeue, JobRequeuesItselfFromItsSignalTrap) {
  auto owner = RootTestUser("sluicetest_a");
  auto other = RootTestUser("sluicetest_b");
  RunOptions as_owner, as_other;
  if (owner && other) {
    as_owner.uid = owner->uid;
    as_owner.gid = owner->gid;
    as_other.uid = other->uid;
    as_other.gid = other->gid;
  }
  std::string script = work_dir() + "/ckpt.sh";
  {
    std::ofstream f(script);
    f << "#!/bin/bash\n"
         "echo start ${SLURM_RESTART_COUNT:-0}\n"
         "if [ ${SLURM_RESTART_COUNT:-0} -ge 1 ]; then echo resumed; exit 0; fi\n"
         "trap 'echo checkpoint; "
      << cluster_->BinPath("scontrol")
      << " requeue $SLURM_JOB_ID; exit 0' USR1\n"
         "sleep 300 &\nwait\n";
  }
  // The limit is 1 minute: USR1 goes to the batch shell 56 s before it, i.e. ~4 s in.
  auto sub = Run({"sbatch", "--parsable", "-t", "1", "--signal=B:USR1@56", "-o", "ck.out", script},
                 as_owner);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  int64_t id = std::stoll(sub.out);
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  if (owner && other) {  // another user may not requeue it
    auto denied = Run({"scontrol", "requeue", std::to_string(id)}, as_other);
    EXPECT_NE(denied.exit_code, 0);
    EXPECT_NE(denied.err.find("Access/permission denied"), std::string::npos) << denied.err;
  }
  EXPECT_EQ(WaitDone(id, 30'000), "COMPLETED");
  EXPECT_EQ(ReadFile("ck.out"), "start 0\ncheckpoint\nstart 1\nresumed\n");
}

TEST_F(Requeue, SrunTaskRequeuesTheJobFromItsSignalHandlerAsLightningDoes) {
  // Lightning's SLURM auto-requeue: --signal=SIGUSR1@90 reaches every rank of the step;
  // rank 0 runs `scontrol requeue $SLURM_JOB_ID`, checks its exit code and logs it, then
  // the job's processes get SIGTERM (which Lightning logs and ignores) and SIGKILL after
  // KillWait; all ranks run again with SLURM_RESTART_COUNT=1.
  std::string task = work_dir() + "/task.sh";
  {
    std::ofstream f(task);
    f << "#!/bin/bash\n"
         "if [ ${SLURM_RESTART_COUNT:-0} -ge 1 ]; then echo rank $SLURM_PROCID resumed; exit 0; "
         "fi\n"
         "trap 'if [ $SLURM_PROCID = 0 ]; then "
      << cluster_->BinPath("scontrol")
      << " requeue $SLURM_JOB_ID; echo requeue rc=$?; fi' USR1\n"
         "trap 'echo rank $SLURM_PROCID got TERM' TERM\n"  // Lightning bypasses SIGTERM: KillWait,
                                                           // then SIGKILL
         "echo rank $SLURM_PROCID started\n"
         "while :; do sleep 0.1 & wait $!; done\n";
  }
  std::string script = work_dir() + "/train.sh";
  {
    std::ofstream f(script);
    f << "#!/bin/bash\n"
         "echo start ${SLURM_RESTART_COUNT:-0}\n"
      << cluster_->BinPath("srun") << " -N2 --ntasks-per-node=1 bash " << task << "\n";
  }
  // The limit is 1 minute: USR1 reaches the tasks 56 s before it, i.e. ~4 s in.
  int64_t id = Submit({"-N2", "-t", "1", "--signal=USR1@56", "-o", "lt.out", script});
  EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED") << ReadFile("lt.out");
  std::string out = ReadFile("lt.out");
  EXPECT_NE(out.find("requeue rc=0"), std::string::npos)
      << "rank 0 never learned that its requeue worked:\n"
      << out;
  EXPECT_LT(out.find("requeue rc=0"), out.find("start 1")) << out;
  EXPECT_NE(out.find("rank 0 got TERM"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 0 resumed"), std::string::npos) << out;
  EXPECT_NE(out.find("rank 1 resumed"), std::string::npos) << out;
  EXPECT_NE(Run({"scontrol", "show", "job", std::to_string(id)}).out.find("Restarts=1"),
            std::string::npos);
}

TEST_F(Requeue, BadSignalSpecIsRefused) {
  auto r = Run({"sbatch", "--signal=B:NOSUCH@10", "--wrap", "true"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Invalid --signal specification"), std::string::npos) << r.err;
}

TEST_F(Requeue, ScancelSignalReachesStepsBatchShellOrBoth) {
  std::string log = work_dir() + "/sig.log";
  std::string ready = work_dir() + "/ready";
  int64_t id = Submit({"-o", "/dev/null", "--wrap",
                       "trap 'echo batch >> " + log + "' USR1; " + cluster_->BinPath("srun") +
                           " bash -c 'trap \"echo step >> " + log + "\" USR1; touch " + ready +
                           "; while :; do sleep 0.1; done' > /dev/null & "
                           "while :; do sleep 0.1; done"});
  std::string sid = std::to_string(id);
  for (int i = 0; i < 200 && !std::filesystem::exists(ready); ++i) usleep(50'000);
  ASSERT_TRUE(std::filesystem::exists(ready));
  ASSERT_EQ(Run({"scancel", "--signal=USR1", sid}).exit_code, 0);  // steps only
  ASSERT_TRUE(WaitFileHas(log, "step\n"));
  ASSERT_EQ(Run({"scancel", "-s", "USR1", "--batch", sid}).exit_code, 0);  // the shell only
  ASSERT_TRUE(WaitFileHas(log, "batch\n"));
  std::string seen = ReadFile(log);
  EXPECT_EQ(Count(seen, "step"), 1) << seen;
  EXPECT_EQ(Count(seen, "batch"), 1) << seen;
  ASSERT_EQ(Run({"scancel", "-s", "USR1", "--full", sid}).exit_code, 0);  // everything
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((Count(ReadFile(log), "batch") < 2 || Count(ReadFile(log), "step") < 2) &&
         std::chrono::steady_clock::now() < end) {
    usleep(50'000);
  }
  seen = ReadFile(log);
  EXPECT_EQ(Count(seen, "batch"), 2) << seen;
  EXPECT_GE(Count(seen, "step"), 2) << seen;
  EXPECT_EQ(State(id), "RUNNING");
  Run({"scancel", sid});
  EXPECT_EQ(WaitDone(id), "CANCELLED");
}

}  // namespace
}  // namespace sluice::testing
