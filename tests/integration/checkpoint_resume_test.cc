// End-to-end checkpoint/resume after node loss: a 2-node `sbatch --requeue` job whose
// `srun /usr/bin/python3 train.py` tasks train a tiny deterministic model with DDP over
// gloo (Debian's python3-torch; skipped clearly when missing), checkpointing model,
// optimizer and step (rank 0, atomic rename) to a shared directory and resuming from it
// when restarted. One copy runs uninterrupted for the reference result; the other loses
// its batch node (agent + job processes SIGKILLed) after a checkpoint exists, is
// requeued, logs "resumed from step N" with N > 0, ends COMPLETED with Restarts=1, and
// its final loss and weights are bit-identical to the reference's.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "cluster_fixture.h"
#include "local/node_kill.h"

namespace sluice::testing {
namespace {

// train.py CKPT_DIR STEPS EVERY NAP: linear regression in float64, data a pure function
// of (step, rank), so a resumed run replays exactly what the lost one would have done.
const char kTrainPy[] = R"PY(import os, sys, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
ckdir, steps, every, nap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
dist.init_process_group('gloo', init_method='env://')
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.Linear(4, 1).double()
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
path = os.path.join(ckdir, 'ckpt.pt')
start = 0
if os.path.exists(path):
    state = torch.load(path)
    model.load_state_dict(state['model'])
    opt.load_state_dict(state['opt'])
    start = state['step']
    if rank == 0:
        print(f"resumed from step {start} restart {os.environ.get('SLURM_RESTART_COUNT', '0')}", flush=True)
dist.barrier()  # every rank has read the checkpoint before rank 0 may replace it
ddp = DDP(model)
w_true = torch.tensor([[1.0, -2.0, 3.0, 0.5]], dtype=torch.float64)
def batch(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 4, generator=g, dtype=torch.float64)
    return x, x @ w_true.t() + 0.5 + 0.01 * torch.randn(16, 1, generator=g, dtype=torch.float64)
def save(step):
    tmp = path + '.tmp'
    torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'step': step}, tmp)
    os.replace(tmp, path)
    with open(os.path.join(ckdir, 'latest.tmp'), 'w') as f:
        f.write(f'{step}\n')
    os.replace(os.path.join(ckdir, 'latest.tmp'), os.path.join(ckdir, 'latest'))
for step in range(start, steps):
    x, y = batch(1000 * step + rank)
    loss = ((ddp(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == 0 and (step + 1) % every == 0:
        save(step + 1)
    time.sleep(nap)
x, y = batch(999999)
with torch.no_grad():
    final = ((model(x) - y) ** 2).mean().item()
w = [repr(v) for v in model.weight.flatten().tolist() + model.bias.tolist()]
print(f"rank {rank} final loss {final!r} weights {' '.join(w)}", flush=True)
dist.destroy_process_group()
)PY";

class CheckpointResume : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.slurmd_timeout_s = 4;
    o.kill_wait_s = 2;
    return o;
  }

  void SetUp() override {
    ClusterTest::SetUp();
    auto probe = RunCommand(
        {"/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()"});
    if (probe.exit_code != 0)
      GTEST_SKIP() << "python3-torch with gloo is not installed under /usr/bin/python3";
  }

  // Submits the training job with its own checkpoint directory; returns the job id.
  int64_t SubmitTraining(const std::string& name) {
    std::string dir = work_dir() + "/" + name;
    std::filesystem::create_directories(dir);
    std::ofstream(work_dir() + "/" + name + ".sh")
        << "#!/bin/bash\n"
           "#SBATCH -N2 --ntasks-per-node=1 --exclusive --requeue\n"
           "#SBATCH -o "
        << name
        << ".out\n"
           "echo start ${SLURM_RESTART_COUNT:-0} on $SLURM_JOB_NODELIST\n"
        << cluster_->BinPath("srun") << " /usr/bin/python3 train.py " << dir << " " << kSteps
        << " 5 0.1\n";
    return Submit({name + ".sh"});
  }

  // The "rank 0 final ..." line of a job's output ("" when missing).
  std::string FinalLine(const std::string& out) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("rank 0 final loss ", 0) == 0) return line;
    }
    return "";
  }

  static constexpr int kSteps = 60;
};

TEST_F(CheckpointResume, TrainingSurvivesLossOfItsBatchNodeAndMatchesTheUninterruptedRun) {
  std::ofstream(work_dir() + "/train.py") << kTrainPy;
  // The run to interrupt goes first (node01 = its batch host, node02; --exclusive: the
  // nodes are not shared with the other run); the reference
  // runs at the same time on node03-04, so the test waits for torch's start-up once.
  int64_t victim = SubmitTraining("victim");
  ASSERT_EQ(WaitState(victim, {"RUNNING"}), "RUNNING");
  auto nodes = Run({"squeue", "-h", "-j", std::to_string(victim), "-o", "%N"});
  ASSERT_EQ(nodes.out, "node[01-02]\n");
  int64_t reference = SubmitTraining("reference");

  // Kill node01 once the victim has a checkpoint of at least step 10 (of 60).
  std::string latest = work_dir() + "/victim/latest";
  int checkpointed = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (checkpointed < 10 && std::chrono::steady_clock::now() < deadline) {
    std::string s = ReadFile(latest);
    checkpointed = s.empty() ? 0 : std::atoi(s.c_str());
    if (checkpointed < 10) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(checkpointed, 10) << ReadFile("victim.out");
  ASSERT_LT(checkpointed, kSteps) << "the run finished before it could be interrupted";
  ASSERT_GT(KillNodeProcesses(*cluster_, 0), 0);

  std::string ref_state = WaitDone(reference, 120'000);
  std::string ref_out = ReadFile("reference.out");
  ASSERT_EQ(ref_state, "COMPLETED") << ref_out;
  EXPECT_EQ(ref_out.find("resumed"), std::string::npos) << ref_out;
  std::string want = FinalLine(ref_out);
  ASSERT_FALSE(want.empty()) << ref_out;

  std::string state = WaitDone(victim, 120'000);
  std::string out = ReadFile("victim.out");
  ASSERT_EQ(state, "COMPLETED") << out;
  auto show = Run({"scontrol", "show", "job", std::to_string(victim)});
  EXPECT_NE(show.out.find("Restarts=1"), std::string::npos) << show.out;
  EXPECT_NE(out.find("start 0 on node[01-02]\n"), std::string::npos) << out;
  EXPECT_NE(out.find("start 1 on "), std::string::npos) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("resumed from step (\\d+) restart 1\n"))) << out;
  int resumed = std::stoi(m[1]);
  EXPECT_GE(resumed, 10) << out;
  EXPECT_EQ(resumed % 5, 0) << out;
  // Exactly the reference's loss and weights (float64, same data, same reduction order).
  EXPECT_EQ(FinalLine(out), want) << out;
}

}  // namespace
}  // namespace sluice::testing
