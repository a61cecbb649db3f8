// srun's signal handling on a real cluster: SIGTERM is forwarded to every task, Ctrl-C
// twice within a second interrupts the tasks, and --kill-on-bad-exit ends the step when a
// task fails.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class SrunSignals : public ClusterTest {
 protected:
  // Starts srun with default signal dispositions, stdout+stderr to `out`.
  pid_t StartSrun(const std::vector<std::string>& args, const std::string& out) {
    std::vector<std::string> argv = {cluster_->BinPath("srun")};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env = cluster_->Env();
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      if (chdir(work_dir().c_str()) != 0) _exit(126);
      for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> cargv;
      for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
      cargv.push_back(nullptr);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      signal(SIGINT, SIG_DFL);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    return pid;
  }
  // Waits until `n` files "ready.<rank>" exist.
  bool WaitReady(int n) {
    for (int i = 0; i < 400; ++i) {
      int found = 0;
      for (int r = 0; r < n; ++r)
        found += std::filesystem::exists(work_dir() + "/ready." + std::to_string(r));
      if (found == n) return true;
      usleep(50'000);
    }
    return false;
  }
  // waitpid with a deadline; -1 on timeout (srun is then killed).
  int Wait(pid_t pid, int timeout_ms) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    int status = 0;
    while (std::chrono::steady_clock::now() < end) {
      if (waitpid(pid, &status, WNOHANG) == pid)
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      usleep(20'000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
};

const char kTask[] =
    "trap 'echo got-$1 $SLURM_PROCID; exit 7' $1; touch ready.$SLURM_PROCID; "
    "while :; do sleep 0.1; done";

// scancel JOB.STEP: the tasks of that step get SIGTERM on every node of the step (their
// trap runs), srun ends with their exit code, and the job goes on to its end.
TEST_F(SrunSignals, ScancelOfOneStepEndsThatStepAndTheJobGoesOn) {
  {
    std::ofstream task(work_dir() + "/task.sh");
    task << kTask << "\n";
  }
  int64_t id = Submit(
      {"-N2", "-o", "steps.out", "--wrap",
       cluster_->BinPath("srun") + " -N2 -n2 -l bash task.sh TERM; echo after=$?; echo done"});
  ASSERT_TRUE(WaitReady(2)) << ReadFile("steps.out");
  RunResult c = Run({"scancel", std::to_string(id) + ".0"});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  const std::string text = ReadFile("steps.out");
  EXPECT_NE(text.find("0: got-TERM 0"), std::string::npos) << text;
  EXPECT_NE(text.find("1: got-TERM 1"), std::string::npos) << text;
  EXPECT_NE(text.find("after=7\ndone\n"), std::string::npos) << text;
  RunResult none = Run({"scancel", "-v", std::to_string(id) + ".5"});
  EXPECT_NE(none.err.find("Kill job error on job step id " + std::to_string(id) + ".5"),
            std::string::npos)
      << none.err;
}

TEST_F(SrunSignals, SigtermIsForwardedToEveryTask) {
  const std::string out = work_dir() + "/term.out";
  pid_t srun = StartSrun({"-N2", "-n2", "-l", "bash", "-c", kTask, "task", "TERM"}, out);
  ASSERT_TRUE(WaitReady(2));
  kill(srun, SIGTERM);
  EXPECT_EQ(Wait(srun, 20'000), 7);
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("0: got-TERM 0"), std::string::npos) << text;
  EXPECT_NE(text.find("1: got-TERM 1"), std::string::npos) << text;
}

TEST_F(SrunSignals, CtrlCTwiceInterruptsTheTasks) {
  const std::string out = work_dir() + "/int.out";
  pid_t srun = StartSrun({"-n2", "-l", "bash", "-c", kTask, "task", "INT"}, out);
  ASSERT_TRUE(WaitReady(2));
  kill(srun, SIGINT);
  usleep(200'000);
  kill(srun, SIGINT);
  EXPECT_EQ(Wait(srun, 20'000), 7);
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("0: got-INT 0"), std::string::npos) << text;
  EXPECT_NE(text.find("1: got-INT 1"), std::string::npos) << text;
}

// --quit-on-interrupt: one Ctrl-C kills the tasks, even ones that ignore SIGINT.
TEST_F(SrunSignals, QuitOnInterruptKillsAtTheFirstCtrlC) {
  const std::string out = work_dir() + "/quit.out";
  pid_t srun = StartSrun({"--quit-on-interrupt", "-n1", "bash", "-c",
                          "trap '' INT; touch ready.0; while :; do sleep 0.1; done"},
                         out);
  ASSERT_TRUE(WaitReady(1));
  kill(srun, SIGINT);
  EXPECT_EQ(Wait(srun, 20'000), 137);
  const std::string text = ReadFile(out);
  EXPECT_NE(text.find("srun: forcing job termination\n"), std::string::npos) << text;
  EXPECT_NE(text.find(": task 0: Killed\n"), std::string::npos) << text;
}

// srun -v names each node's launch, and an srun whose job is cancelled says that its step
// is being aborted and for how long (KillWait + 2 s) before the tasks end.
TEST_F(SrunSignals, VerboseLaunchLinesAndStepAbortedOnCancel) {
  const std::string out = work_dir() + "/abort.out";
  pid_t srun = StartSrun(
      {"-v", "-N2", "-n3", "bash", "-c", "touch ready.$SLURM_PROCID; while :; do sleep 0.1; done"},
      out);
  ASSERT_TRUE(WaitReady(3));
  const int64_t id = LastJobId();
  ASSERT_EQ(Run({"scancel", std::to_string(id)}).exit_code, 0);
  EXPECT_NE(Wait(srun, 30'000), -1);
  const std::string text = ReadFile(out);
  const std::string step = "StepId=" + std::to_string(id) + ".0";
  const std::regex launch("srun: launching " + step +
                          " on host node[0-9]+, (2 tasks: \\[0-1\\]|1 tasks: 2)\n");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(text.begin(), text.end(), launch), std::sregex_iterator()),
      2)
      << text;
  EXPECT_NE(text.find("srun: Job step aborted: Waiting up to "), std::string::npos) << text;
  EXPECT_EQ(text.find("Job step aborted", text.find("Job step aborted") + 1), std::string::npos)
      << text;
}

// scancel --signal=STOP stops the job's steps and shows the job STOPPED (Slurm's state)
// until --signal=CONT; the tasks are really stopped meanwhile.
TEST_F(SrunSignals, StopAndContShowTheJobStoppedThenRunning) {
  const int64_t id =
      Submit({"-o", "/dev/null", "--wrap",
              BinDir() + "/srun bash -c 'while :; do date +%s%N >> ticks; sleep 0.05; done'"});
  const std::string job = std::to_string(id);
  const std::string ticks = work_dir() + "/ticks";
  for (int i = 0; i < 400 && !std::filesystem::exists(ticks); ++i) usleep(50'000);
  ASSERT_TRUE(std::filesystem::exists(ticks));
  ASSERT_EQ(Run({"scancel", "--signal=STOP", job}).exit_code, 0);
  EXPECT_EQ(Run({"squeue", "-h", "-j", job, "-o", "%T %t"}).out, "STOPPED ST\n");
  EXPECT_NE(Run({"scontrol", "show", "job", job}).out.find("JobState=STOPPED "), std::string::npos);
  usleep(300'000);
  const size_t frozen = ReadFile(ticks).size();
  usleep(500'000);
  EXPECT_EQ(ReadFile(ticks).size(), frozen);  // no tick while stopped
  ASSERT_EQ(Run({"scancel", "--signal=CONT", job}).exit_code, 0);
  EXPECT_EQ(Run({"squeue", "-h", "-j", job, "-o", "%T"}).out, "RUNNING\n");
  usleep(500'000);
  EXPECT_GT(ReadFile(ticks).size(), frozen);
  Run({"scancel", job});
  EXPECT_EQ(WaitDone(id), "CANCELLED");
}

TEST_F(SrunSignals, KillOnBadExitEndsTheStep) {
  auto start = std::chrono::steady_clock::now();
  auto r = Run({"srun", "-n2", "--kill-on-bad-exit=1", "bash", "-c",
                "if [ $SLURM_PROCID = 1 ]; then exit 4; fi; sleep 60"});
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(took, std::chrono::seconds(30));
  EXPECT_NE(r.err.find("task 1: Exited with exit code 4"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sluice::testing
