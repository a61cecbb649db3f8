// The environment of batch scripts and srun tasks on a real cluster against Slurm's for
// the same request (shared/reference/env): every variable Slurm sets must be there.
// DefMemPerCPU=1000 as in the reference cluster's slurm.conf (SLURM_MEM_PER_CPU).
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

// Names in reference files, without the submitting shell's own variables.
const std::set<std::string> kBatchNames = {"ENVIRONMENT",
                                           "HOSTNAME",
                                           "SLURMD_NODENAME",
                                           "SLURM_CLUSTER_NAME",
                                           "SLURM_CONF",
                                           "SLURM_CPUS_ON_NODE",
                                           "SLURM_GTIDS",
                                           "SLURM_JOBID",
                                           "SLURM_JOB_ACCOUNT",
                                           "SLURM_JOB_CPUS_PER_NODE",
                                           "SLURM_JOB_GID",
                                           "SLURM_JOB_ID",
                                           "SLURM_JOB_NAME",
                                           "SLURM_JOB_NODELIST",
                                           "SLURM_JOB_NUM_NODES",
                                           "SLURM_JOB_PARTITION",
                                           "SLURM_JOB_QOS",
                                           "SLURM_JOB_UID",
                                           "SLURM_JOB_USER",
                                           "SLURM_LOCALID",
                                           "SLURM_MEM_PER_CPU",
                                           "SLURM_NNODES",
                                           "SLURM_NODEID",
                                           "SLURM_NODELIST",
                                           "SLURM_NODE_ALIASES",
                                           "SLURM_NPROCS",
                                           "SLURM_NTASKS",
                                           "SLURM_PRIO_PROCESS",
                                           "SLURM_PROCID",
                                           "SLURM_SUBMIT_DIR",
                                           "SLURM_SUBMIT_HOST",
                                           "SLURM_TASKS_PER_NODE",
                                           "SLURM_TASK_PID",
                                           "SLURM_TOPOLOGY_ADDR",
                                           "SLURM_TOPOLOGY_ADDR_PATTERN",
                                           "SLURM_WORKING_CLUSTER",
                                           "TMPDIR"};  // sbatch_N1_n1_nogpu
const std::set<std::string> kStepNames = {"CUDA_VISIBLE_DEVICES",
                                          "GPU_DEVICE_ORDINAL",
                                          "ROCR_VISIBLE_DEVICES",
                                          "SLURMD_NODENAME",
                                          "SLURM_CLUSTER_NAME",
                                          "SLURM_CONF",
                                          "SLURM_CPUS_ON_NODE",
                                          "SLURM_GPUS_ON_NODE",
                                          "SLURM_GTIDS",
                                          "SLURM_JOBID",
                                          "SLURM_JOB_ACCOUNT",
                                          "SLURM_JOB_CPUS_PER_NODE",
                                          "SLURM_JOB_GID",
                                          "SLURM_JOB_ID",
                                          "SLURM_JOB_NAME",
                                          "SLURM_JOB_NODELIST",
                                          "SLURM_JOB_NUM_NODES",
                                          "SLURM_JOB_PARTITION",
                                          "SLURM_JOB_QOS",
                                          "SLURM_JOB_UID",
                                          "SLURM_JOB_USER",
                                          "SLURM_LAUNCH_NODE_IPADDR",
                                          "SLURM_LOCALID",
                                          "SLURM_NNODES",
                                          "SLURM_NODEID",
                                          "SLURM_NODELIST",
                                          "SLURM_NPROCS",
                                          "SLURM_NTASKS",
                                          "SLURM_NTASKS_PER_NODE",
                                          "SLURM_PRIO_PROCESS",
                                          "SLURM_PROCID",
                                          "SLURM_SRUN_COMM_HOST",
                                          "SLURM_SRUN_COMM_PORT",
                                          "SLURM_STEPID",
                                          "SLURM_STEP_GPUS",
                                          "SLURM_STEP_ID",
                                          "SLURM_STEP_LAUNCHER_PORT",
                                          "SLURM_STEP_NODELIST",
                                          "SLURM_STEP_NUM_NODES",
                                          "SLURM_STEP_NUM_TASKS",
                                          "SLURM_STEP_TASKS_PER_NODE",
                                          "SLURM_SUBMIT_DIR",
                                          "SLURM_SUBMIT_HOST",
                                          "SLURM_TASKS_PER_NODE",
                                          "SLURM_TASK_PID",
                                          "SLURM_TOPOLOGY_ADDR",
                                          "SLURM_TOPOLOGY_ADDR_PATTERN",
                                          "SLURM_UMASK",
                                          "SLURM_WORKING_CLUSTER",
                                          "SRUN_DEBUG",
                                          "ZE_AFFINITY_MASK"};  // srun_N2_n4_npn2_gpu2.rank0
// Batch steps also get these (sbatch_N2_npn2_gpu2.step.rank0): the batch script's own
// variables are inherited.
const std::set<std::string> kBatchStepExtra = {
    "ENVIRONMENT",    "SLURM_DISTRIBUTION", "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0",
    "SLURM_JOB_GPUS", "SLURM_MEM_PER_CPU",  "SLURM_NODE_ALIASES"};

class JobEnv : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.extra_config_lines.push_back("DefMemPerCPU=1000");
    return o;
  }
  std::map<std::string, std::string> Env(const std::string& file) {
    std::map<std::string, std::string> out;
    std::istringstream in(ReadFile(file));
    for (std::string line; std::getline(in, line);)
      if (size_t eq = line.find('='); eq != std::string::npos)
        out[line.substr(0, eq)] = line.substr(eq + 1);
    return out;
  }
  void ExpectNames(const std::map<std::string, std::string>& env,
                   const std::set<std::string>& names, const std::string& what) {
    for (const std::string& n : names) EXPECT_TRUE(env.count(n)) << what << " lacks " << n;
  }
};

TEST_F(JobEnv, BatchAndStepsSetEverySlurmVariable) {
  int64_t id = Submit({"-N1", "-n1", "-o", "/dev/null", "--wrap", "env > batch.env"});
  ASSERT_EQ(WaitDone(id), "COMPLETED");
  auto batch = Env("batch.env");
  ExpectNames(batch, kBatchNames, "batch");
  EXPECT_EQ(batch["SLURM_JOB_ACCOUNT"], "root");  // nothing configured: root, as Slurm
  EXPECT_EQ(batch["SLURM_MEM_PER_CPU"], "1000");

  id = Submit({"-N2", "--ntasks-per-node=2", "--gres=gpu:2", "-o", "step.out", "--wrap",
               cluster_->BinPath("srun") + " bash -c 'env > step.$SLURM_PROCID.env'"});
  ASSERT_EQ(WaitDone(id, 60'000), "COMPLETED") << ReadFile("step.out");
  auto step = Env("step.0.env");
  ExpectNames(step, kStepNames, "batch step");
  ExpectNames(step, kBatchStepExtra, "batch step");
  EXPECT_EQ(step["SLURM_JOB_ACCOUNT"], "root");

  RunResult r = Run({"srun", "-N2", "-n4", "--ntasks-per-node=2", "--gres=gpu:2", "bash", "-c",
                     "env > srun.$SLURM_PROCID.env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto task = Env("srun.3.env");
  ExpectNames(task, kStepNames, "srun task");
  EXPECT_EQ(task["SLURM_JOB_ACCOUNT"], "root");
  auto acct = Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%a"});
  EXPECT_EQ(acct.out, "root\n");
}

}  // namespace
}  // namespace sluice::testing
