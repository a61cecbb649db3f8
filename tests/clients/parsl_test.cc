// Parsl (providers/slurm/slurm.py, template.py, launchers.py): every command a shell
// string; the `sacct -X` probe; `sbatch SCRIPT` with the id from the anchored
// `Submitted batch job (?P<id>\S*)`; status in batches as `sacct -X --noheader
// --format=jobid,state%20 --job 'A,B'` or `squeue --noheader --format='%i %t' --job 'A,B'`,
// where a tracked id missing from the output counts as COMPLETED (so a job must be listed
// right after its submission); the SrunLauncher's `srun --ntasks N -l bash cmd_$SLURM_JOB_NAME.sh`;
// `scancel A B` (exit 0 = all cancelled).
#include <filesystem>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

class Parsl : public ClientReplay {
 protected:
  // Parsl's status(): id -> the first word of the state (missing ids are absent).
  std::map<std::string, std::string> Status(const std::string& cmd) {
    RunResult r = Shell(cmd);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::string> out;
    for (const std::string& line : Lines(r.out)) {
      std::vector<std::string> w = Words(line);
      if (w.size() >= 2) out[w[0]] = w[1];
    }
    return out;
  }
  std::string Submit(const std::string& script_dir, const std::string& job_name, int tasks,
                     const std::string& command) {
    const std::string path = script_dir + "/" + job_name;
    std::ofstream(path)
        << "#!/bin/bash\n\n"
        << "#SBATCH --job-name=" << job_name << "\n"
        << "#SBATCH --output=" << path << ".stdout\n"
        << "#SBATCH --error=" << path << ".stderr\n"
        << "#SBATCH --nodes=1\n"
        << "#SBATCH --time=10\n"
        << "#SBATCH --ntasks-per-node=" << tasks << "\n"
        << "#SBATCH --exclusive\n"
        << "#SBATCH --partition=" << Partition() << "\n"
        << "#SBATCH --mem=1g\n"
        << "#SBATCH --cpus-per-task=1\n\n"
        << "export PARSL_MEMORY_GB=1\nexport PARSL_CORES=1\n"
        << "export JOBNAME=\"" << job_name << "\"\n\n"
        << "set -e\nexport CORES=$SLURM_CPUS_ON_NODE\nexport NODES=$SLURM_JOB_NUM_NODES\n\n"
        << "[[ \"1\" == \"1\" ]] && echo \"Found cores : $CORES\"\n"
        << "[[ \"1\" == \"1\" ]] && echo \"Found nodes : $NODES\"\n"
        << "WORKERCOUNT=" << tasks << "\n\n"
        << "cat << SLURM_EOF > " << script_dir << "/cmd_$SLURM_JOB_NAME.sh\n"
        << command << "\nSLURM_EOF\n"
        << "chmod a+x " << script_dir << "/cmd_$SLURM_JOB_NAME.sh\n\n"
        << "srun --ntasks " << tasks << " -l  bash " << script_dir << "/cmd_$SLURM_JOB_NAME.sh\n\n"
        << "[[ \"1\" == \"1\" ]] && echo \"Done\"\n";
    RunResult r = Shell("sbatch " + path);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const std::string& line : Lines(r.out)) {
      std::smatch m;
      if (std::regex_search(line, m, std::regex("^Submitted batch job (\\S*)"))) return m[1];
    }
    ADD_FAILURE() << "no 'Submitted batch job' line in: " << r.out;
    return "";
  }
};

TEST_F(Parsl, ProbeSubmitStatusInBatchesSrunLauncherCancel) {
  ASSERT_EQ(Shell("sacct -X").exit_code, 0);  // sacct works: status comes from sacct
  const std::string dir = work_dir() + "/runinfo/000/submit_scripts";
  fs::create_directories(dir);
  const std::string quick =
      Submit(dir, "parsl.slurm.1712345678.123456", 2,
             "echo worker \\$SLURM_PROCID of \\$SLURM_NTASKS on \\$SLURMD_NODENAME");
  const std::string slow = Submit(dir, "parsl.slurm.1712345678.654321", 1, "sleep 300");
  ASSERT_FALSE(quick.empty());
  ASSERT_FALSE(slow.empty());
  const std::string ids = "'" + quick + "," + slow + "'";
  const std::string sacct = "sacct -X --noheader --format=jobid,state%20 --job " + ids;
  const std::string squeue = "squeue --noheader --format='%i %t' --job " + ids;
  // Right after submission both are listed (a missing one would be taken as COMPLETED).
  std::map<std::string, std::string> now = Status(sacct);
  EXPECT_EQ(now.count(quick), 1u);
  EXPECT_EQ(now.count(slow), 1u);
  // squeue lists what is not finished: the quick one may already be done.
  EXPECT_EQ(Status(squeue).count(slow), 1u);

  ASSERT_TRUE(WaitFor([&] { return Status(sacct)[quick] == "COMPLETED"; })) << Status(sacct)[quick];
  ASSERT_TRUE(WaitFor([&] { return Status(squeue)[slow] == "R"; })) << Status(squeue)[slow];
  EXPECT_EQ(Status(sacct)[slow], "RUNNING");
  const std::string out = ReadFile(dir + "/parsl.slurm.1712345678.123456.stdout");
  EXPECT_NE(out.find("Found nodes : 1"), std::string::npos) << out;
  EXPECT_EQ(SortedLines(out, "0: worker").size(), 1u) << out;  // srun -l labels
  EXPECT_EQ(SortedLines(out, "1: worker 1 of 2").size(), 1u) << out;
  EXPECT_NE(out.find("Done"), std::string::npos) << out;

  ASSERT_EQ(Shell("scancel " + slow).exit_code, 0);
  ASSERT_TRUE(WaitFor([&] { return Status(sacct)[slow] == "CANCELLED"; })) << Status(sacct)[slow];
}

}  // namespace
}  // namespace sluice::testing
