// sstat against a real cluster: the usage of a running two-node step comes from its
// nodes' agents (each task's processes read from /proc), and what cannot be reported is
// refused in Slurm's words.
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cluster_fixture.h"
#include "common/text_util.h"

namespace sluice::testing {
namespace {

using Sstat = ClusterTest;

TEST_F(Sstat, ReportsWhatTheTasksOfARunningStepUse) {
  // Each task holds 80 MiB it has written (so it is resident), then waits.
  WriteFile("hold.py",
            "import os, time\n"
            "b = b'x' * (80 << 20)\n"
            "open('ready.' + os.environ['SLURM_PROCID'], 'w').close()\n"
            "time.sleep(120)\n");
  const int64_t id =
      Submit({"-N2", "-o", "/dev/null", "--wrap", BinDir() + "/srun -N2 -n2 python3 hold.py"});
  for (int i = 0; i < 600 && !(std::filesystem::exists(work_dir() + "/ready.0") &&
                               std::filesystem::exists(work_dir() + "/ready.1"));
       ++i)
    usleep(50'000);
  ASSERT_TRUE(std::filesystem::exists(work_dir() + "/ready.1"));
  const std::string job = std::to_string(id);
  RunResult r = Run(
      {"sstat", "-j", job, "-P", "-o", "JobID,MaxRSS,MaxRSSTask,AveRSS,NTasks,Nodelist,MinCPU"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines;
  for (std::string_view l : Split(r.out, '\n'))
    if (!l.empty()) lines.emplace_back(l);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], "JobID|MaxRSS|MaxRSSTask|AveRSS|NTasks|Nodelist|MinCPU") << r.out;
  std::vector<std::string> f;
  for (std::string_view v : Split(lines[1], '|')) f.emplace_back(v);
  ASSERT_EQ(f.size(), 7u) << lines[1];
  EXPECT_EQ(f[0], job + ".0");
  EXPECT_GE(std::stoll(f[1]), 80 * 1024) << f[1];  // "NNNK"
  EXPECT_TRUE(f[2] == "0" || f[2] == "1") << f[2];
  EXPECT_GE(std::stoll(f[3]), 80 * 1024) << f[3];
  EXPECT_EQ(f[4], "2");
  EXPECT_TRUE(std::regex_match(f[5], std::regex(R"(node\[\d+[-,]\d+\])"))) << f[5];  // two nodes
  EXPECT_FALSE(f[6].empty());

  // -i: the pids on each node; --allsteps with one step is the same step.
  r = Run({"sstat", "-i", "-n", "-P", "-a", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(job + ".0|", 0), 0u) << r.out;

  r = Run({"sstat", "-j", job + ".7"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sstat: error: StepId=" + job + ".7 not found running."), std::string::npos)
      << r.err;
  Run({"scancel", job});
  EXPECT_EQ(WaitDone(id), "CANCELLED");
  r = Run({"sstat", "-j", job});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("sstat: error: No steps running for job " + job), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace sluice::testing
