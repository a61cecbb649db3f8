// snakemake 7.21 from Debian, run for real with `--slurm` against the cluster: it guesses
// the account (`sacct -nu "$USER" -o Account%20 | head -n1`) and the default partition
// (`sinfo -o %P`), submits every rule with `sbatch ... -o .snakemake/slurm_logs/rule_R/%j.log
// --export=ALL ... --wrap='python -m snakemake ...'` taking the last word of the output as
// the id, runs the rule inside the job with `srun -n1 --cpu-bind=q`, and polls `sacct -P -n
// --format=JobIdRaw,State -j ID` until COMPLETED.
#include <filesystem>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kSnakemake[] = "/usr/bin/snakemake";

class Snakemake : public ClientReplay {};

TEST_F(Snakemake, SlurmExecutorRunsAWorkflowOfTwoRules) {
  if (!fs::exists(kSnakemake))
    GTEST_SKIP() << "Debian's snakemake is not installed (scripts/install-deps)";
  const std::string dir = work_dir() + "/flow";
  fs::create_directories(dir);
  std::ofstream(dir + "/Snakefile")
      << "rule all:\n"
         "    input: \"out/b.txt\"\n\n"
         "rule a:\n"
         "    output: \"out/a.txt\"\n"
         "    resources: runtime=5, mem_mb=2000\n"
         "    shell: \"echo job=$SLURM_JOB_ID > {output}\"\n\n"
         "rule b:\n"
         "    input: \"out/a.txt\"\n"
         "    output: \"out/b.txt\"\n"
         "    threads: 2\n"
         "    resources: runtime=5, mem_mb=2000\n"
         "    shell: \"cat {input} > {output}; echo cpus=$SLURM_CPUS_ON_NODE >> {output}\"\n";
  RunOptions o = ClientEnv(dir);
  o.timeout_ms = 240'000;
  RunResult r =
      RunCommand({kSnakemake, "--slurm", "--jobs", "2", "--max-status-checks-per-second", "2",
                  "--latency-wait", "10", "--default-resources", "mem_mb=2000", "runtime=5"},
                 o);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string b = ReadFile(dir + "/out/b.txt");
  const std::string a_id = Capture(b, "job=(\\d+)");
  ASSERT_FALSE(a_id.empty()) << b;
  EXPECT_NE(b.find("cpus=2"), std::string::npos) << b;
  // The %j of `-o` expanded: rule a's log is named after its job.
  EXPECT_TRUE(fs::exists(dir + "/.snakemake/slurm_logs/rule_a/" + a_id + ".log"));
  // Each rule was its own job and both completed.
  RunResult acct = Call({"sacct", "-P", "-n", "--format=JobIdRaw,State", "-j", a_id});
  EXPECT_NE(acct.out.find(a_id + "|COMPLETED"), std::string::npos) << acct.out;
}

}  // namespace
}  // namespace sluice::testing
