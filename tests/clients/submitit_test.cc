// submitit 1.5.4 (facebookincubator/submitit, submitit/slurm/slurm.py): its generated
// batch script (sorted `#SBATCH --key=value` lines, srun with %j_%t log paths), `sbatch
// FILE` parsed with r"job (?P<id>[0-9]+)", `sacct -o JobID,State,NodeList --parsable2 -j
// A -j B` parsed by header, the interrupt `scancel ID --signal USR2` whose handler on rank 0
// runs `scontrol requeue ID` (check_call) and exits, the rerun with the same id, and
// `scancel ID`.
#include <filesystem>
#include <fstream>
#include <set>

#include "client_replay.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

// The task side of submitit's _submit: SIGTERM/SIGCONT bypassed, SIGUSR2 requeues (rank 0).
constexpr char kTask[] = R"PY(import os, signal, subprocess, sys, time
folder = sys.argv[1]
job = os.environ["SLURM_JOB_ID"]
rank = os.environ["SLURM_PROCID"]
restarts = os.environ.get("SLURM_RESTART_COUNT", "0")
def bypass(signum, frame):
    print(f"Bypassing signal {signum}", flush=True)
def checkpoint_and_try_requeue(signum, frame):
    if rank != "0":
        return
    if os.environ.get("SLURM_ARRAY_JOB_ID"):
        jid = os.environ["SLURM_ARRAY_JOB_ID"] + "_" + os.environ["SLURM_ARRAY_TASK_ID"]
    else:
        jid = job
    try:
        subprocess.check_call(["scontrol", "requeue", jid], timeout=60)
        rc = "0"
    except subprocess.CalledProcessError as e:
        rc = str(e.returncode)
    with open(f"{folder}/{job}_requeue_rc", "w") as f:
        f.write(rc)
    sys.exit(-1)
signal.signal(signal.SIGTERM, bypass)
signal.signal(signal.SIGCONT, bypass)
signal.signal(signal.SIGUSR2, checkpoint_and_try_requeue)
print(f"task {rank} of job {job} run {restarts}", flush=True)
if restarts == "0":
    open(f"{folder}/{job}_{rank}_started", "w").close()
    while True:
        time.sleep(0.1)
with open(f"{folder}/{job}_{rank}_result.txt", "w") as f:
    f.write(" ".join([restarts, os.environ["SLURM_NTASKS"], os.environ["SLURM_JOB_NUM_NODES"],
                      os.environ["SLURM_LOCALID"], os.environ["SLURM_JOB_NODELIST"]]))
)PY";

class Submitit : public ClientReplay {
 protected:
  // submitit's JobPaths.submission_file before sbatch, renamed after it returns.
  int64_t SubmitWithSbatch(const std::string& folder, const std::string& script) {
    const std::string tmp = folder + "/.submission_file_0123456789abcdef0123456789abcdef.sh";
    std::ofstream(tmp) << script;
    RunResult r = Call({"sbatch", tmp});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string id = Capture(r.out, "job ([0-9]+)");
    EXPECT_FALSE(id.empty()) << r.out;
    if (id.empty()) return 0;
    fs::rename(tmp, folder + "/" + id + "_submission.sh");
    return std::stoll(id);
  }
  // submitit's SlurmInfoWatcher: one sacct call for every id still unfinished.
  std::map<std::string, std::string> Poll(const std::vector<int64_t>& ids) {
    std::vector<std::string> argv = {"sacct", "-o", "JobID,State,NodeList", "--parsable2"};
    for (int64_t id : ids) argv.insert(argv.end(), {"-j", std::to_string(id)});
    RunResult r = Call(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::string> states;
    auto rows = DictRows(r.out, '|');
    if (!rows.empty()) EXPECT_EQ(Lines(r.out)[0], "JobID|State|NodeList");
    for (auto& row : rows) {
      const std::string& id = row["JobID"];
      if (id.empty() || id.find('.') != std::string::npos) continue;  // steps
      states[id] = row["State"];
    }
    return states;
  }
  static bool Done(const std::string& state) {
    static const std::set<std::string> kActive = {"READY",    "PENDING",    "RUNNING",  "UNKNOWN",
                                                  "REQUEUED", "COMPLETING", "PREEMPTED"};
    std::string up = state;
    for (char& c : up) c = static_cast<char>(toupper(c));
    return !state.empty() && !kActive.count(up);
  }
};

TEST_F(Submitit, SubmitPollInterruptRequeueRerunAndCancel) {
  const std::string f = work_dir() + "/submitit_logs";
  fs::create_directories(f);
  std::ofstream(f + "/task.py") << kTask;
  const std::string script =
      "#!/bin/bash\n\n# Parameters\n"
      "#SBATCH --error=" +
      f +
      "/%j_0_log.err\n"
      "#SBATCH --gpus-per-node=1\n"
      "#SBATCH --job-name=submitit\n"
      "#SBATCH --mem=1GB\n"
      "#SBATCH --nodes=1\n"
      "#SBATCH --ntasks-per-node=2\n"
      "#SBATCH --open-mode=append\n"
      "#SBATCH --output=" +
      f +
      "/%j_0_log.out\n"
      "#SBATCH --signal=USR2@90\n"
      "#SBATCH --time=5\n"
      "#SBATCH --wckey=submitit\n\n"
      "# command\nexport SUBMITIT_EXECUTOR=slurm\n"
      "srun --unbuffered --output " +
      f + "/%j_%t_log.out --error " + f +
      "/%j_%t_log.err "
      "python3 -u " +
      f + "/task.py " + f + "\n";
  const int64_t a = SubmitWithSbatch(f, script);
  const int64_t b = SubmitWithSbatch(f, script);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  const std::string as = std::to_string(a), bs = std::to_string(b);
  ASSERT_TRUE(WaitFor([&] {
    return fs::exists(f + "/" + as + "_0_started") && fs::exists(f + "/" + as + "_1_started");
  })) << ReadFile(f + "/" + as + "_0_log.err");
  std::map<std::string, std::string> st = Poll({a, b});
  EXPECT_EQ(st[as], "RUNNING");
  EXPECT_FALSE(Done(st[bs])) << st[bs];

  // job._interrupt(): the positional id before the option, as submitit writes it.
  RunResult sig = Call({"scancel", as, "--signal", "USR2"});
  ASSERT_EQ(sig.exit_code, 0) << sig.err;
  ASSERT_TRUE(WaitFor([&] { return Done(Poll({a})[as]); }, 90'000)) << Poll({a})[as];
  EXPECT_EQ(Poll({a})[as], "COMPLETED");
  // The handler learnt that the requeue worked, and both tasks ran again under the same id.
  EXPECT_EQ(ReadFile(f + "/" + as + "_requeue_rc"), "0");
  for (const char* rank : {"0", "1"}) {
    std::vector<std::string> w = Words(ReadFile(f + "/" + as + "_" + rank + "_result.txt"));
    ASSERT_EQ(w.size(), 5u) << rank;
    EXPECT_EQ(w[0], "1");   // SLURM_RESTART_COUNT
    EXPECT_EQ(w[1], "2");   // SLURM_NTASKS
    EXPECT_EQ(w[2], "1");   // SLURM_JOB_NUM_NODES
    EXPECT_EQ(w[3], rank);  // SLURM_LOCALID
  }
  // srun expanded %j and %t; --open-mode=append kept both runs' lines.
  std::string log0 = ReadFile(f + "/" + as + "_0_log.out");
  EXPECT_NE(log0.find("task 0 of job " + as + " run 0"), std::string::npos) << log0;
  EXPECT_NE(log0.find("task 0 of job " + as + " run 1"), std::string::npos) << log0;
  EXPECT_NE(ReadFile(f + "/" + as + "_1_log.out").find("task 1 of job " + as), std::string::npos);

  RunResult cancel = Call({"scancel", bs});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  ASSERT_TRUE(WaitFor([&] { return Done(Poll({b})[bs]); })) << Poll({b})[bs];
  EXPECT_EQ(Poll({b})[bs].rfind("CANCELLED", 0), 0u) << Poll({b})[bs];
}

}  // namespace
}  // namespace sluice::testing
