// srun options Slurm's testsuite and MPMD users rely on, end to end: --multi-prog,
// --task-prolog/--task-epilog, --overcommit, --immediate, --wait's report and the input
// environment variables (SLURM_NPROCS, SLURM_STDOUTMODE, ...).
#include <sys/resource.h>

#include <chrono>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using SrunOptionsIt = ClusterTest;

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST_F(SrunOptionsIt, MultiProgRunsAProgramPerRank) {
  WriteFile("mp.conf",
            "1-2   echo task:%t:offset:%o\n0,3   echo aaaa \\\ntask:%t:offset:%o bbbb\n");
  RunResult r = Run({"srun", "-n4", "-O", "-l", "--multi-prog", "mp.conf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"0: aaaa task:0:offset:0 bbbb", "1: task:1:offset:0",
                           "2: task:2:offset:1", "3: aaaa task:3:offset:1 bbbb"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  r = Run({"srun", "-n5", "-O", "--multi-prog", "mp.conf"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Configuration file mp.conf invalid"), std::string::npos) << r.err;
}

TEST_F(SrunOptionsIt, TaskPrologSetsTheEnvironmentAndTheEpilogRunsAfterEachTask) {
  const std::string pre = work_dir() + "/pre", post = work_dir() + "/post";
  WriteShellScript(work_dir() + "/prolog", "id >> " + pre +
                                               "\necho print HEADER\n"
                                               "echo export TEST=prolog_qa\necho unset DISPLAY\n");
  WriteShellScript(work_dir() + "/epilog",
                   "echo \"$SLURM_PROCID $TEST\" >> " + post + "\nsleep 200\n");
  WriteShellScript(work_dir() + "/task", "echo TEST==$TEST\necho DISPLAY==${DISPLAY}X\n");
  const auto t0 = std::chrono::steady_clock::now();
  RunOptions o;
  o.extra_env = {"DISPLAY=:7"};
  RunResult r = Run({"srun", "-N1", "-n4", "-O", "--task-prolog=prolog",
                     "--task-epilog=" + work_dir() + "/epilog", work_dir() + "/task"},
                    o);
  const auto secs =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(r.out, "HEADER\n"), 4) << r.out;
  EXPECT_EQ(Count(r.out, "TEST==prolog_qa\n"), 4) << r.out;
  EXPECT_EQ(Count(r.out, "DISPLAY==X\n"), 4) << r.out;
  EXPECT_EQ(Count(ReadFile(pre), "uid=0("), 4);
  // Each task's epilog ran with the task's environment (the prolog's exports are the
  // task's own, not the epilog's); its `sleep 200` was cut after 5 s.
  EXPECT_EQ(SortedLines(ReadFile(post), ""), (std::vector<std::string>{"0 ", "1 ", "2 ", "3 "}));
  EXPECT_LT(secs.count(), 30);
  EXPECT_NE(Run({"pgrep", "-f", "sleep 200"}).exit_code, 0);
}

TEST_F(SrunOptionsIt, OvercommitImmediateAndWait) {
  RunResult r = Run({"srun", "-N1", "-w", "node01", "-n17", "--overcommit", "-v", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("srun: ntasks              : 17\n"), std::string::npos) << r.err;
  EXPECT_NE(Run({"srun", "-N1", "-n17", "true"}).exit_code, 0);  // 17 tasks, 16 CPUs

  r = Run({"srun", "--immediate", "--hold", "pwd"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Unable to allocate resources"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"srun", "--immediate", "pwd"}).exit_code, 0);

  WriteShellScript(work_dir() + "/w.sh", "[ \"$SLURM_PROCID\" = 1 ] && exit 0\nsleep 20\n");
  r = Run({"srun", "-n4", "-N1", "-O", "-W2", work_dir() + "/w.sh"});
  EXPECT_NE(r.exit_code, 0);
  for (const char* want : {"First task exited 2s ago", "tasks 0,2-3: running", "task 1: exited",
                           "tasks 0,2-3: Killed"})
    EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
}

// The submitting shell's soft limits reach the batch shell (sbatch) and the tasks (srun
// inside the job, after the script lowered them), as Slurm's PropagateResourceLimits=ALL;
// --propagate=NONE / a list choose which.
TEST_F(SrunOptionsIt, ResourceLimitsOfTheSubmittingShellArePropagated) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_GT(saved.rlim_max, 900u);
  rlimit lowered = saved;
  lowered.rlim_cur = 900;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);  // inherited by the sbatch below
  const int64_t all =
      Submit({"-o", "all.out", "--wrap",
              "echo batch=$(ulimit -n); ulimit -S -n 700; ulimit -S -c 3; " + BinDir() +
                  "/srun -n1 sh -c 'echo step=$(ulimit -n) core=$(ulimit -c)'"});
  const int64_t none =
      Submit({"--propagate=NONE", "-o", "none.out", "--wrap", "echo batch=$(ulimit -n)"});
  const int64_t core =
      Submit({"--propagate=CORE", "-o", "core.out", "--wrap", "echo batch=$(ulimit -n)"});
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_EQ(WaitDone(all), "COMPLETED");
  EXPECT_EQ(WaitDone(none), "COMPLETED");
  EXPECT_EQ(WaitDone(core), "COMPLETED");
  EXPECT_EQ(ReadFile(work_dir() + "/all.out"), "batch=900\nstep=700 core=3\n");
  EXPECT_NE(ReadFile(work_dir() + "/none.out"), "batch=900\n");
  EXPECT_NE(ReadFile(work_dir() + "/core.out"), "batch=900\n");
  RunResult bad = Run({"sbatch", "--propagate=BOGUS", "--wrap", "true"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--propagate=BOGUS is invalid"), std::string::npos) << bad.err;
}

TEST_F(SrunOptionsIt, InputEnvironmentVariablesActAsOptions) {
  RunOptions o;
  o.extra_env = {"SLURM_NPROCS=5", "SLURM_NNODES=1", "SLURM_OVERCOMMIT=1",
                 "SLURM_STDOUTMODE=" + work_dir() + "/env.out", "SLURM_DEBUG=1"};
  RunResult r = Run({"srun", "sh", "-c", "echo rank=$SLURM_PROCID node=$SLURM_NODEID"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("srun: overcommit          : set\n"), std::string::npos) << r.err;
  const std::string out = ReadFile(work_dir() + "/env.out");
  EXPECT_EQ(Count(out, "rank="), 5) << out;
  EXPECT_EQ(Count(out, "node=0"), 5) << out;
}

}  // namespace
}  // namespace sluice::testing
