// Nextflow (executor/SlurmExecutor.groovy + AbstractGridExecutor): `.command.run` with
// `#SBATCH <opt> <value>` lines (space-separated, `--signal B:USR2@30`), submitted as
// `sbatch .command.run` from the task directory (or the script on stdin: Fusion) with
// stdout and stderr merged and /Submitted batch job (\d+)/ found in it; status from
// `squeue --noheader -o '%i %t' -t all -p P -u USER` where only lines of exactly two
// columns count; completion from the task's `.exitcode`; kill as `scancel ID ID ...`.
#include <filesystem>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

class Nextflow : public ClientReplay {
 protected:
  // The executor's queue status: job id -> Nextflow's status for the squeue code.
  std::map<std::string, std::string> QueueStatus(const std::string& partition) {
    static const std::map<std::string, std::string> kMap = {
        {"PD", "PENDING"}, {"R", "RUNNING"}, {"CA", "ERROR"}, {"CF", "PENDING"},
        {"CG", "RUNNING"}, {"CD", "DONE"},   {"F", "ERROR"},  {"TO", "ERROR"},
        {"NF", "ERROR"},   {"S", "HOLD"},    {"ST", "HOLD"},  {"PR", "ERROR"}};
    RunResult r =
        Call({"squeue", "--noheader", "-o", "%i %t", "-t", "all", "-p", partition, "-u", "root"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::string> out;
    for (const std::string& line : Lines(r.out)) {
      std::vector<std::string> cols;
      std::regex ws("\\s+");
      for (std::sregex_token_iterator it(line.begin(), line.end(), ws, -1), end; it != end; ++it)
        cols.push_back(*it);
      EXPECT_EQ(cols.size(), 2u) << "'" << line << "'";  // Nextflow drops any other line
      if (cols.size() != 2) continue;
      auto it = kMap.find(cols[1]);
      out[cols[0]] = it == kMap.end() ? "" : it->second;
    }
    return out;
  }
  std::string CommandRun(const std::string& task_dir, const std::string& name,
                         const std::string& partition, const std::string& body) {
    std::ofstream(task_dir + "/.command.sh") << "#!/bin/bash -ue\n" << body << "\n";
    return "#!/bin/bash\n"
           "#SBATCH -J nf-" +
           name +
           "\n"
           "#SBATCH -o " +
           task_dir +
           "/.command.log\n"
           "#SBATCH --no-requeue\n"
           "#SBATCH --signal B:USR2@30\n"
           "#SBATCH -c 2\n"
           "#SBATCH -t 00:10:00\n"
           "#SBATCH --mem 512M\n"
           "#SBATCH -p " +
           partition +
           "\n"
           "NXF_CHDIR=" +
           task_dir +
           "\n"
           "# NEXTFLOW TASK: " +
           name +
           "\n"
           "set -e\nset -u\n"
           "nxf_main() {\n"
           "    trap 'exit_status=$?; printf -- $exit_status > " +
           task_dir +
           "/.exitcode; exit $exit_status' EXIT\n"
           "    trap 'exit 143' TERM INT USR2\n"
           "    [[ $NXF_CHDIR ]] && cd $NXF_CHDIR\n"
           "    touch " +
           task_dir +
           "/.command.begin\n"
           "    /bin/bash -ue " +
           task_dir + "/.command.sh > " + task_dir + "/.command.out 2> " + task_dir +
           "/.command.err\n"
           "}\n"
           "nxf_main\n";
  }
  std::string SubmitId(const RunResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string merged = r.out + r.err;
    return Capture(merged, "Submitted batch job (\\d+)");
  }
};

TEST_F(Nextflow, SubmitPollExitcodeAndKill) {
  const std::string part = Partition();
  const std::string a_dir = work_dir() + "/work/ab/cdef12", b_dir = work_dir() + "/work/12/345678";
  fs::create_directories(a_dir);
  fs::create_directories(b_dir);
  std::ofstream(a_dir + "/.command.run")
      << CommandRun(a_dir, "foo_(1)", part, "echo hello from $SLURM_JOB_ID");
  const std::string a = SubmitId(Call({"sbatch", ".command.run"}, a_dir));
  ASSERT_FALSE(a.empty());
  // Fusion: the script on stdin.
  RunOptions fusion = ClientEnv(b_dir);
  fusion.stdin_data = CommandRun(b_dir, "bar_(2)", part, "sleep 300");
  const std::string b = SubmitId(RunCommand({BinDir() + "/sbatch"}, fusion));
  ASSERT_FALSE(b.empty());

  ASSERT_TRUE(WaitFor([&] { return QueueStatus(part)[a] == "DONE"; })) << QueueStatus(part)[a];
  EXPECT_TRUE(fs::exists(a_dir + "/.command.begin"));
  EXPECT_EQ(ReadFile(a_dir + "/.exitcode"), "0");
  EXPECT_EQ(ReadFile(a_dir + "/.command.out"), "hello from " + a + "\n");

  ASSERT_TRUE(WaitFor([&] { return QueueStatus(part)[b] == "RUNNING"; })) << QueueStatus(part)[b];
  // The kill batch: every id on one scancel line (Nextflow only logs a failure; one of
  // these jobs has already ended).
  Call({"scancel", b, a});
  ASSERT_TRUE(WaitFor([&] { return QueueStatus(part)[b] == "ERROR"; })) << QueueStatus(part)[b];
  EXPECT_EQ(QueueStatus(part)[a], "DONE");
}

}  // namespace
}  // namespace sluice::testing
