// PyTorch Lightning's SLURM auto-requeue (fabric/plugins/environments/slurm.py,
// pytorch/trainer/connectors/signal_connector.py) with the batch script of its docs
// (cluster_advanced.rst): `#SBATCH --signal=SIGUSR1@90` and `srun python3 train.py`. Every
// rank checks the environment as SLURMEnvironment does (SLURM_NTASKS_PER_NODE must equal
// the devices, SLURM_NNODES the nodes, MASTER_ADDR from SLURM_NODELIST with its regexes);
// on SIGUSR1 rank 0 runs `scontrol requeue ID` and only logs the exit code, SIGTERM is
// bypassed, nobody exits: the job must be ended and requeued by the workload manager,
// and every rank runs again with SLURM_RESTART_COUNT=1.
#include <filesystem>
#include <set>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kTrain[] = R"PY(import os, re, signal, subprocess, sys, time
out = sys.argv[1]
env = os.environ
assert "SLURM_NTASKS" in env and env.get("SLURM_JOB_NAME") not in ("bash", "interactive")
if int(env["SLURM_NTASKS"]) > 1 and "SLURM_NTASKS_PER_NODE" not in env:
    raise RuntimeError("SLURM_NTASKS_PER_NODE missing")
if env["SLURM_NTASKS_PER_NODE"] != "2" or env["SLURM_NNODES"] != "2":
    raise ValueError("devices/num_nodes do not match the allocation")
nodelist = env.get("SLURM_NODELIST", "127.0.0.1")
nodelist = re.sub(r"\[(.*?)[,-].*\]", "\\1", nodelist)
nodelist = re.sub(r"\[(.*?)\]", "\\1", nodelist)
master = nodelist.split(" ")[0].split(",")[0]
port = int(env["SLURM_JOB_ID"][-4:]) + 15000
rank, world, restarts = env["SLURM_PROCID"], env["SLURM_NTASKS"], env.get("SLURM_RESTART_COUNT", "0")
job_id = env["SLURM_JOB_ID"]
if env.get("SLURM_ARRAY_JOB_ID"):
    job_id = env["SLURM_ARRAY_JOB_ID"] + "_" + env["SLURM_ARRAY_TASK_ID"]
def slurm_sigusr_handler_fn(signum, frame):
    open(f"{out}/hpc_ckpt_{rank}.ckpt", "w").write(restarts)
    if rank == "0":
        assert re.match("[0-9_-]+", job_id)
        result = subprocess.call(["scontrol", "requeue", job_id])
        with open(f"{out}/requeue.log", "w") as f:
            f.write(f"Requeued SLURM job: {job_id}" if result == 0 else f"Requeue failed: {result}")
def sigterm_handler_fn(signum, frame):
    print(f"[rank: {rank}] Received SIGTERM: Bypassing SIGTERM", flush=True)
signal.signal(signal.SIGUSR1, slurm_sigusr_handler_fn)
signal.signal(signal.SIGTERM, sigterm_handler_fn)
with open(f"{out}/rank{rank}.run{restarts}", "w") as f:
    f.write(f"{master}:{port} {world} {env['SLURM_LOCALID']} {env['SLURM_NODEID']}")
if restarts == "0":
    while True:
        time.sleep(0.1)
)PY";

class Lightning : public ClientReplay {};

TEST_F(Lightning, SigusrBeforeTheLimitRequeuesAndEveryRankResumes) {
  const std::string d = work_dir() + "/lightning";
  fs::create_directories(d);
  WriteFile("lightning/train.py", kTrain);
  WriteFile("lightning/job.sh",
            "#!/bin/bash\n"
            "#SBATCH --nodes=2\n"
            "#SBATCH --gres=gpu:2\n"
            "#SBATCH --ntasks-per-node=2\n"
            "#SBATCH --mem=0\n"
            "#SBATCH --time=0-00:01:40\n"  // the signal comes 90 s before: 10 s in
            "#SBATCH --signal=SIGUSR1@90\n"
            "#SBATCH --output=" +
                d +
                "/slurm-%j.out\n"
                "srun python3 " +
                d + "/train.py " + d + "\n");
  RunResult sub = Call({"sbatch", d + "/job.sh"});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string id = Capture(sub.out, "Submitted batch job ([0-9]+)");
  ASSERT_FALSE(id.empty()) << sub.out;
  // First run: 4 ranks up, then SIGUSR1 at ~10 s, the requeue, the rerun.
  ASSERT_TRUE(WaitFor(
      [&] { return fs::exists(d + "/rank3.run1") && fs::exists(d + "/rank0.run1"); }, 120'000))
      << ReadFile(d + "/slurm-" + id + ".out");
  EXPECT_EQ(ReadFile(d + "/requeue.log"), "Requeued SLURM job: " + id);
  std::set<std::string> masters;
  for (int r = 0; r < 4; ++r) {
    const std::string rank = std::to_string(r);
    EXPECT_TRUE(fs::exists(d + "/rank" + rank + ".run0")) << rank;
    EXPECT_EQ(ReadFile(d + "/hpc_ckpt_" + rank + ".ckpt"), "0") << rank;  // every rank saw SIGUSR1
    std::vector<std::string> w = Words(ReadFile(d + "/rank" + rank + ".run1"));
    ASSERT_EQ(w.size(), 4u) << rank;
    masters.insert(w[0]);
    EXPECT_EQ(w[1], "4");
    EXPECT_EQ(w[2], std::to_string(r % 2));  // SLURM_LOCALID
    EXPECT_EQ(w[3], std::to_string(r / 2));  // SLURM_NODEID
  }
  ASSERT_EQ(masters.size(), 1u);  // one MASTER_ADDR:MASTER_PORT for all ranks
  const std::string master = *masters.begin();
  const std::string first_host =
      Lines(
          Call({"scontrol", "show", "hostnames",
                Capture(Call({"squeue", "-h", "-t", "all", "-j", id, "-o", "%N"}).out, R"((\S+))")})
              .out)
          .at(0);
  EXPECT_EQ(master.substr(0, master.find(':')), first_host);
  EXPECT_EQ(WaitDone(std::stoll(id), 60'000), "COMPLETED");
}

}  // namespace
}  // namespace sluice::testing
