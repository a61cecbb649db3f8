// Heterogeneous jobs end to end: `#SBATCH hetjob` components become consecutive jobs that
// start together, the first one's script sees every component's allocation and runs
// steps in any of them (srun --het-group), and the components end together whichever
// one is cancelled.
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using HetJob = ClusterTest;

const char kScript[] =
    "#!/bin/sh\n"
    "#SBATCH --cpus-per-task=4 --mem-per-cpu=10 --ntasks=1\n"
    "#SBATCH hetjob\n"
    "#SBATCH --cpus-per-task=2 --mem-per-cpu=2 --ntasks=1\n"
    "#SBATCH hetjob\n"
    "#SBATCH --cpus-per-task=1 --mem-per-cpu=6 --ntasks=1\n"
    "env | grep -E '^SLURM_(HET_SIZE|JOB_ID_HET_GROUP_|JOB_NODELIST_HET_GROUP_|CPUS_PER_TASK_HET)' "
    "| sort > het.env\n"
    "SRUN -l --het-group=1 printenv SLURM_JOB_ID > group1.out\n"
    "touch ready\n"
    "sleep 60\n";

TEST_F(HetJob, ComponentsRunTogetherAndEndTogether) {
  std::string script = kScript;
  script.replace(script.find("SRUN"), 4, BinDir() + "/srun");
  WriteFile("het.sh", script);
  const int64_t id = Submit({"-o", "het.out", "het.sh"});
  const std::string a = std::to_string(id), b = std::to_string(id + 1), c = std::to_string(id + 2);
  for (int i = 0; i < 400 && ::access((work_dir() + "/ready").c_str(), F_OK) != 0; ++i)
    usleep(50'000);
  ASSERT_EQ(::access((work_dir() + "/ready").c_str(), F_OK), 0)
      << ReadFile(work_dir() + "/het.out");

  RunResult q = Run({"squeue", "-h", "-o", "%i %A %T"});
  EXPECT_EQ(q.out, a + "+0 " + a + " RUNNING\n" + a + "+1 " + b + " RUNNING\n" + a + "+2 " + c +
                       " RUNNING\n");
  RunResult show = Run({"scontrol", "-o", "show", "job", b});
  EXPECT_NE(
      show.out.find("JobId=" + b + " HetJobId=" + a + " HetJobOffset=1 HetJobIdSet=" + a + "-" + c),
      std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("CPUs/Task=2"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("MinMemoryCPU=2M"), std::string::npos) << show.out;

  const std::string env = ReadFile(work_dir() + "/het.env");
  for (const std::string& want : std::vector<std::string>{
           "SLURM_HET_SIZE=3\n", "SLURM_JOB_ID_HET_GROUP_1=" + b + "\n",
           "SLURM_CPUS_PER_TASK_HET_GROUP_0=4\n", "SLURM_JOB_NODELIST_HET_GROUP_2=node"})
    EXPECT_NE(env.find(want), std::string::npos) << want << "\n" << env;
  EXPECT_EQ(ReadFile(work_dir() + "/group1.out"), "0: " + b + "\n");

  // Cancelling one component ends them all.
  ASSERT_EQ(Run({"scancel", b}).exit_code, 0);
  for (int64_t job : {id, id + 1, id + 2}) EXPECT_EQ(WaitDone(job), "CANCELLED") << job;
}

// Two components need two whole nodes while only one is free: neither starts (no half of
// the job holds a node), and both start together once the nodes are free; the script's
// end completes every component.
TEST_F(HetJob, WaitsWholeThenCompletesWhole) {
  const int64_t blocker = Submit({"-N3", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(blocker, {"RUNNING"}), "RUNNING");
  WriteFile("two.sh",
            "#!/bin/sh\n#SBATCH -N1 --exclusive\n#SBATCH hetjob\n#SBATCH -N1 --exclusive\ntrue\n");
  const int64_t id = Submit({"-o", "/dev/null", "two.sh"});
  usleep(1'500'000);
  EXPECT_EQ(State(id), "PENDING");
  EXPECT_EQ(State(id + 1), "PENDING");
  ASSERT_EQ(Run({"scancel", std::to_string(blocker)}).exit_code, 0);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(WaitDone(id + 1), "COMPLETED");
  RunResult s = Run({"sacct", "-X", "-n", "-P", "-j",
                     std::to_string(id) + "," + std::to_string(id + 1), "-o", "Start"});
  std::vector<std::string> starts = SortedLines(s.out, "");
  ASSERT_EQ(starts.size(), 2u) << s.out;
  auto seconds = [](const std::string& t) {
    std::tm tm{};
    ::strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    return ::timegm(&tm);
  };
  EXPECT_LE(std::abs(seconds(starts[0]) - seconds(starts[1])), 1)
      << s.out;  // one pass started both
}

}  // namespace
}  // namespace sluice::testing
