// End-to-end job arrays (throttle, env, output names, scancel of tasks) and
// dependencies (afterok chain, afternotok never satisfied, singleton).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Arrays : public ClusterTest {
 protected:
  // State of one array task as `squeue -r -t all -j A_T -o %T` prints it.
  std::string TaskState(int64_t array, int task) {
    std::string sel = std::to_string(array) + "_" + std::to_string(task);
    auto r = Run({"squeue", "-h", "-r", "-t", "all", "-j", sel, "-o", "%T"});
    std::string s = r.out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  std::string WaitTask(int64_t array, int task, const std::vector<std::string>& states) {
    std::string s;
    for (int i = 0; i < 300; ++i) {
      s = TaskState(array, task);
      if (std::find(states.begin(), states.end(), s) != states.end()) return s;
      usleep(100'000);
    }
    return s;
  }
  std::string Squeue(std::vector<std::string> args) {
    args.insert(args.begin(), "squeue");
    return Run(args).out;
  }
};

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST_F(Arrays, ThrottledArrayRunsEveryTaskWithEnvAndOutputNames) {
  std::filesystem::create_directories(work_dir() + "/run");
  int64_t a = Submit({"--array=0-5%2", "-J", "arr", "-o", "arr-%A_%a.out", "--wrap",
                      "touch run/$SLURM_ARRAY_TASK_ID; echo concurrent=$(ls run | wc -l); "
                      "env | grep -E '^SLURM_ARRAY|^SLURM_JOB_ID=' | sort; sleep 1; "
                      "rm run/$SLURM_ARRAY_TASK_ID"});
  ASSERT_GT(a, 0);
  int max_running = 0;
  bool done = false;
  for (int i = 0; i < 400 && !done; ++i) {
    max_running =
        std::max(max_running, Lines(Squeue({"-h", "-r", "-t", "R", "-j", std::to_string(a)})));
    done = Squeue({"-h", "-j", std::to_string(a)}).empty();
    usleep(50'000);
  }
  ASSERT_TRUE(done);
  EXPECT_LE(max_running, 2);
  EXPECT_GE(max_running, 1);
  for (int t = 0; t < 6; ++t) {
    EXPECT_EQ(TaskState(a, t), "COMPLETED") << t;
    std::string out = ReadFile("arr-" + std::to_string(a) + "_" + std::to_string(t) + ".out");
    EXPECT_NE(out.find("SLURM_ARRAY_JOB_ID=" + std::to_string(a) + "\n"), std::string::npos) << out;
    EXPECT_NE(out.find("SLURM_ARRAY_TASK_ID=" + std::to_string(t) + "\n"), std::string::npos)
        << out;
    EXPECT_NE(out.find("SLURM_ARRAY_TASK_COUNT=6\n"), std::string::npos) << out;
    EXPECT_NE(out.find("SLURM_ARRAY_TASK_MIN=0\n"), std::string::npos) << out;
    EXPECT_NE(out.find("SLURM_ARRAY_TASK_MAX=5\n"), std::string::npos) << out;
    EXPECT_NE(out.find("SLURM_JOB_ID=" + std::to_string(a + t) + "\n"), std::string::npos) << out;
    int concurrent = out.find("concurrent=") == std::string::npos
                         ? 99
                         : std::stoi(out.substr(out.find("concurrent=") + 11));
    EXPECT_LE(concurrent, 2) << out;
  }
  auto ids = Squeue({"-h", "-t", "all", "-j", std::to_string(a) + "_3", "-o", "%i %A %F %K"});
  EXPECT_EQ(ids,
            std::to_string(a) + "_3 " + std::to_string(a + 3) + " " + std::to_string(a) + " 3\n");
}

TEST_F(Arrays, PendingTasksAreCompressedAndScancelTakesOneTaskOrAll) {
  int64_t a = Submit({"--array=0-3", "--hold", "-o", "/dev/null", "--wrap", "sleep 60"});
  std::string id = std::to_string(a);
  EXPECT_EQ(Squeue({"-h", "-j", id, "-o", "%i %r"}), id + "_[0-3] JobHeldUser\n");
  auto show = Run({"scontrol", "show", "job", id});
  EXPECT_NE(show.out.find("ArrayJobId=" + id + " ArrayTaskId=0-3"), std::string::npos) << show.out;
  ASSERT_EQ(Run({"scontrol", "release", id}).exit_code, 0);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(WaitTask(a, t, {"RUNNING"}), "RUNNING") << t;
  auto r = Run({"scancel", id + "_2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(WaitTask(a, 2, {"CANCELLED"}), "CANCELLED");
  EXPECT_EQ(TaskState(a, 1), "RUNNING");
  r = Run({"scancel", id + "_[0-1]"});
  EXPECT_EQ(WaitTask(a, 0, {"CANCELLED"}), "CANCELLED");
  EXPECT_EQ(WaitTask(a, 1, {"CANCELLED"}), "CANCELLED");
  EXPECT_EQ(TaskState(a, 3), "RUNNING");
  r = Run({"scancel", id});
  EXPECT_EQ(WaitTask(a, 3, {"CANCELLED"}), "CANCELLED");
}

TEST_F(Arrays, AfterOkChainRunsInOrder) {
  int64_t a = Submit({"-J", "depA", "-o", "/dev/null", "--wrap", "sleep 2; date +%s%N > a.t"});
  int64_t b = Submit({"-J", "depB", "-o", "/dev/null", "--dependency=afterok:" + std::to_string(a),
                      "--wrap", "date +%s%N > b.t"});
  int64_t c = Submit({"-J", "depC", "-o", "/dev/null", "--dependency=afterok:" + std::to_string(b),
                      "--wrap", "date +%s%N > c.t"});
  EXPECT_EQ(Squeue({"-h", "-j", std::to_string(c), "-o", "%r"}), "Dependency\n");
  auto show = Run({"scontrol", "show", "job", std::to_string(b)});
  EXPECT_NE(
      show.out.find("Reason=Dependency Dependency=afterok:" + std::to_string(a) + "(unfulfilled)"),
      std::string::npos)
      << show.out;
  EXPECT_EQ(WaitDone(c), "COMPLETED");
  EXPECT_EQ(State(a), "COMPLETED");
  EXPECT_EQ(State(b), "COMPLETED");
  long long ta = std::stoll(ReadFile("a.t")), tb = std::stoll(ReadFile("b.t")),
            tc = std::stoll(ReadFile("c.t"));
  EXPECT_LT(ta, tb);
  EXPECT_LT(tb, tc);
}

TEST_F(Arrays, AfterNotOkOfSuccessIsNeverSatisfied) {
  int64_t a = Submit({"-o", "/dev/null", "--wrap", "true"});
  std::string dep = "--dependency=afternotok:" + std::to_string(a);
  int64_t keep = Submit({"-o", "/dev/null", dep, "--wrap", "true"});
  int64_t kill = Submit({"-o", "/dev/null", dep, "--kill-on-invalid-dep=yes", "--wrap", "true"});
  EXPECT_EQ(WaitDone(a), "COMPLETED");
  EXPECT_EQ(WaitDone(kill), "CANCELLED");
  std::string reason;
  for (int i = 0; i < 100 && reason != "DependencyNeverSatisfied\n"; ++i) {
    reason = Squeue({"-h", "-j", std::to_string(keep), "-o", "%r"});
    usleep(100'000);
  }
  EXPECT_EQ(reason, "DependencyNeverSatisfied\n");
  auto show = Run({"scontrol", "show", "job", std::to_string(keep)});
  EXPECT_NE(show.out.find("Dependency=afternotok:" + std::to_string(a) + "(failed)"),
            std::string::npos)
      << show.out;
  EXPECT_EQ(State(keep), "PENDING");
  auto unknown =
      Run({"sbatch", "--dependency=afterok:999999", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(unknown.exit_code, 0) << unknown.err;
  auto bad = Run({"sbatch", "--dependency=afterok:x", "--wrap", "true"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "sbatch: error: Batch job submission failed: Job dependency problem\n");
}

TEST_F(Arrays, SingletonRunsOneAtATime) {
  int64_t a = Submit({"-J", "solo", "-d", "singleton", "-o", "/dev/null", "--wrap",
                      "date +%s%N > a.start; sleep 1; date +%s%N > a.end"});
  int64_t b = Submit(
      {"-J", "solo", "-d", "singleton", "-o", "/dev/null", "--wrap", "date +%s%N > b.start"});
  EXPECT_EQ(WaitDone(b), "COMPLETED");
  EXPECT_EQ(State(a), "COMPLETED");
  EXPECT_LT(std::stoll(ReadFile("a.end")), std::stoll(ReadFile("b.start")));
}

}  // namespace
}  // namespace sluice::testing
