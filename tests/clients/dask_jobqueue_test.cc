// dask-jobqueue (dask_jobqueue/slurm.py, core.py): a `#!/usr/bin/env bash` script with
// short options (`-J`, `-e/-o logs/dask-worker-%J.*`, `-n 1`, `-N 1`), written to a
// temporary file that is deleted as soon as `sbatch FILE` returns; the id is the first run
// of digits anywhere in sbatch's output; workers end with `scancel ID`.
#include <filesystem>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

class DaskJobqueue : public ClientReplay {};

TEST_F(DaskJobqueue, TemporaryScriptWorkerLogsAndCancel) {
  fs::create_directories(work_dir() + "/logs");
  const std::string tmp = work_dir() + "/tmpk2x9w_1c.sh";
  std::ofstream(tmp)
      << "#!/usr/bin/env bash\n\n"
         "#SBATCH -J dask-worker\n"
         "#SBATCH -e logs/dask-worker-%J.err\n"
         "#SBATCH -o logs/dask-worker-%J.out\n"
         "#SBATCH -p "
      << Partition()
      << "\n"
         "#SBATCH -n 1\n"
         "#SBATCH -N 1\n"
         "#SBATCH --cpus-per-task=2\n"
         "#SBATCH --mem=954M\n"
         "#SBATCH -t 00:30:00\n\n"
         "echo \"worker $SLURM_JOB_ID cpus $SLURM_CPUS_PER_TASK mem $SLURM_MEM_PER_NODE\"\n"
         "exec sleep 300\n";
  RunResult r = Call({"sbatch", tmp});
  fs::remove(tmp);  // the temporary file is gone before the job can start
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string id = Capture(r.out, "(\\d+)");
  ASSERT_FALSE(id.empty()) << r.out;
  EXPECT_EQ(WaitState(std::stoll(id), {"RUNNING"}), "RUNNING");
  const std::string log = work_dir() + "/logs/dask-worker-" + id + ".out";
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(log).empty(); })) << log;
  EXPECT_EQ(ReadFile(log), "worker " + id + " cpus 2 mem 954\n");
  EXPECT_TRUE(fs::exists(work_dir() + "/logs/dask-worker-" + id + ".err"));

  RunResult cancel = Call({"scancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(WaitDone(std::stoll(id)), "CANCELLED");
}

}  // namespace
}  // namespace sluice::testing
