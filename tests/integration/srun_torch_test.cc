// PyTorch distributed training started the ways real batch scripts do it, with Debian's
// python3-torch under /usr/bin/python3 (skipped clearly when it is missing):
//   - torchrun (torch.distributed.run) launched by srun, one launcher per node, c10d
//     rendezvous at the step's MASTER_ADDR:MASTER_PORT, 2 workers per node;
//   - the usual sbatch shape: #SBATCH --nodes=2 --ntasks-per-node=2 --gres=gpu:2,
//     MASTER_ADDR exported from `scontrol show hostnames`, then `srun python train.py`.
// Both all_reduce over 4 gloo ranks and check every rank's view of the layout.
#include <algorithm>
#include <sstream>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class SrunTorch : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    auto probe = RunCommand(
        {"/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()"});
    if (probe.exit_code != 0)
      GTEST_SKIP() << "python3-torch with gloo is not installed under /usr/bin/python3";
  }
};

TEST_F(SrunTorch, TorchrunLaunchedBySrunInsideSbatch) {
  // Workers write their view to rank-N.txt: Debian's torch 1.13 under Python 3.11 cannot
  // parse torchrun's default "--redirects 0 --tee 0" (IntFlag iteration changed), so the
  // launch uses "-r 1 -t 2" (workers' stdout to torchrun's log dir, stderr tee'd).
  WriteFile(
      "worker.py",
      "import os, torch, torch.distributed as dist\n"
      "dist.init_process_group('gloo')\n"
      "r, w = dist.get_rank(), dist.get_world_size()\n"
      "t = torch.tensor([float(r + 1)])\n"
      "dist.all_reduce(t)\n"
      "open(f'rank-{r}.txt', 'w').write(f\"rank {r} world {w} local {os.environ['LOCAL_RANK']}/"
      "{os.environ['LOCAL_WORLD_SIZE']} node {os.environ['GROUP_RANK']} sum {int(t.item())}\\n\")\n"
      "dist.destroy_process_group()\n");
  // One torchrun per node; the rendezvous endpoint is the step's MASTER_ADDR:MASTER_PORT
  // (expanded by each task's shell, so it is the step's, not the batch script's). Torch
  // 1.13 spells the options with underscores (2.x also takes --nproc-per-node, ...).
  WriteFile("torchrun.sh",
            "#!/bin/bash\n"
            "#SBATCH -N2 --ntasks-per-node=1 -o torchrun-%j.out\n"
            "export PATH=" +
                BinDir() +
                ":$PATH\n"
                "srun -N2 --ntasks-per-node=1 bash -c '/usr/bin/python3 -m torch.distributed.run "
                "--nnodes=2 "
                "--nproc_per_node=2 --rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT "
                "--rdzv_id=$SLURM_JOB_ID -r 1 -t 2 worker.py'\n");
  int64_t id = Submit({"torchrun.sh"});
  std::string state = WaitDone(id, 120'000);
  std::string out = ReadFile("torchrun-" + std::to_string(id) + ".out");
  EXPECT_EQ(state, "COMPLETED") << out;
  std::string ranks;
  for (int r = 0; r < 4; ++r) ranks += ReadFile("rank-" + std::to_string(r) + ".txt");
  EXPECT_EQ(
      SortedLines(ranks, "rank "),
      (std::vector<std::string>{
          "rank 0 world 4 local 0/2 node 0 sum 10", "rank 1 world 4 local 1/2 node 0 sum 10",
          "rank 2 world 4 local 0/2 node 1 sum 10", "rank 3 world 4 local 1/2 node 1 sum 10"}))
      << out;
}

TEST_F(SrunTorch, UsualMultiNodeSbatchShapeRunsUnmodified) {
  // train.py checks what every rank sees. MASTER_ADDR is the user's export (the first node's
  // name, never overwritten by the step); the loopback test cluster's node names do not
  // resolve, so only then the script connects to the step's own address instead.
  WriteFile("train.py",
            "import os, socket, torch, torch.distributed as dist\n"
            "e = os.environ\n"
            "first = e['SLURM_JOB_NODELIST'].replace('node[', 'node').split('-')[0].split(',')[0]\n"
            "assert e['MASTER_ADDR'] == first, (e['MASTER_ADDR'], first)\n"
            "try:\n"
            "    socket.gethostbyname(e['MASTER_ADDR'])\n"
            "except OSError:\n"
            "    e['MASTER_ADDR'] = '127.0.0.1'\n"
            "dist.init_process_group('gloo', init_method='env://')\n"
            "r, w = dist.get_rank(), dist.get_world_size()\n"
            "assert r == int(e['SLURM_PROCID']) and w == int(e['SLURM_NTASKS'])\n"
            "assert int(e['LOCAL_RANK']) == int(e['SLURM_LOCALID'])\n"
            "t = torch.tensor([float(r + 1)])\n"
            "dist.all_reduce(t)\n"
            "print(f\"rank {r} world {w} local {e['LOCAL_RANK']} node {e['SLURM_NODEID']} "
            "{e['SLURMD_NODENAME']}"
            " gpus {len(e['CUDA_VISIBLE_DEVICES'].split(','))} master {first} sum "
            "{int(t.item())}\", flush=True)\n"
            "dist.destroy_process_group()\n");
  WriteFile(
      "job.sh",
      "#!/bin/bash\n"
      "#SBATCH --nodes=2 --ntasks-per-node=2 --gres=gpu:2\n"
      "#SBATCH -o train-%j.out\n"
      "export PATH=" +
          BinDir() +
          ":$PATH\n"
          "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
          "srun /usr/bin/python3 train.py\n");
  int64_t id = Submit({"job.sh"});
  std::string state = WaitDone(id, 120'000);
  std::string out = ReadFile("train-" + std::to_string(id) + ".out");
  EXPECT_EQ(state, "COMPLETED") << out;
  EXPECT_EQ(SortedLines(out, "rank "),
            (std::vector<std::string>{
                "rank 0 world 4 local 0 node 0 node01 gpus 2 master node01 sum 10",
                "rank 1 world 4 local 1 node 0 node01 gpus 2 master node01 sum 10",
                "rank 2 world 4 local 0 node 1 node02 gpus 2 master node01 sum 10",
                "rank 3 world 4 local 1 node 1 node02 gpus 2 master node01 sum 10"}))
      << out;
}

}  // namespace
}  // namespace sluice::testing
