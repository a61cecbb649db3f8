// End-to-end job steps on a real controller + 4 agents: srun inside an sbatch
// allocation, standalone srun (allocation + step + release), labels, exit codes, the
// task environment, salloc, and tasks dying with their srun.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace sluice::testing {
namespace {

using Srun = ClusterTest;

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(Srun, StepInsideBatchAllocationSeesRankEnvironment) {
  std::string srun = cluster_->BinPath("srun");
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N2 --ntasks-per-node=2 --gres=gpu:2 -o step-%j.out\n" +
      srun +
      " bash -c 'echo $SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURM_NTASKS "
      "$WORLD_SIZE $RANK $LOCAL_RANK $MASTER_ADDR $SLURMD_NODENAME $SLURM_STEP_ID "
      "$SLURM_STEP_NODELIST $SLURM_TASKS_PER_NODE $SLURM_STEP_TASKS_PER_NODE "
      "$SLURM_GPUS_ON_NODE $MASTER_PORT/$CUDA_VISIBLE_DEVICES'\n" +
      srun + " -N1 -n1 bash -c 'echo second step $SLURM_STEP_ID $SLURM_NNODES $SLURM_NTASKS'\n";
  std::string path = work_dir() + "/steps.sh";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs(script.c_str(), f);
  fclose(f);
  int64_t id = Submit({path});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::vector<std::string> lines = SplitLines(ReadFile("step-" + std::to_string(id) + ".out"));
  ASSERT_EQ(lines.size(), 5u) << ReadFile("step-" + std::to_string(id) + ".out");
  std::vector<std::string> ranks(lines.begin(), lines.begin() + 4);
  std::sort(ranks.begin(), ranks.end());
  std::string port;
  for (int r = 0; r < 4; ++r) {
    std::istringstream in(ranks[r]);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    ASSERT_EQ(w.size(), 15u) << ranks[r];
    std::string node = r < 2 ? "node01" : "node02";
    std::vector<std::string> want = {std::to_string(r),
                                     std::to_string(r % 2),
                                     std::to_string(r / 2),
                                     "4",
                                     "4",
                                     std::to_string(r),
                                     std::to_string(r % 2),
                                     "127.0.0.1",
                                     node,
                                     "0",
                                     "node[01-02]",
                                     "2(x2)",
                                     "2(x2)",
                                     "2"};
    EXPECT_EQ(std::vector<std::string>(w.begin(), w.begin() + 14), want) << ranks[r];
    std::string p = w[14].substr(0, w[14].find('/'));
    if (port.empty()) port = p;
    EXPECT_EQ(p, port) << "MASTER_PORT must be the same for all tasks";
    EXPECT_EQ(std::count(w[14].begin(), w[14].end(), ','), 1) << "two GPUs: " << w[14];
  }
  EXPECT_GE(std::stoi(port), 1024);
  EXPECT_EQ(lines[4], "second step 1 1 1");
}

// srun inside its job reaches the controller through its node agent (SLUICE_RELAY_SOCKET):
// it needs no controller address or credential of its own, and an agent relays only for
// jobs allocated on its node.
TEST_F(Srun, StepsInsideTheJobGoThroughTheirNodeAgent) {
  int64_t other = Submit({"-N1", "-w", "node04", "--wrap", "sleep 120"});
  ASSERT_EQ(WaitState(other, {"RUNNING"}), "RUNNING");
  std::string srun = cluster_->BinPath("srun");
  std::string no_conf = "SLUICE_CONF=/nonexistent SLURM_CONF=/nonexistent ";
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N2 -w node[01-02] --ntasks-per-node=1 -o relay-%j.out\n" +
      no_conf + srun +
      " -l bash -c 'echo $SLURMD_NODENAME $SLUICE_RELAY_SOCKET'\n"
      "echo rc=$?\n"
      "SLURM_JOB_ID=" +
      std::to_string(other) + " " + no_conf + srun +
      " true\n"
      "echo other=$?\n";
  std::string path = work_dir() + "/relay.sh";
  std::ofstream(path) << script;
  int64_t id = Submit({path});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  Run({"scancel", std::to_string(other)});
  std::string out = ReadFile("relay-" + std::to_string(id) + ".out");
  std::vector<std::string> lines = SplitLines(out);
  ASSERT_GE(lines.size(), 4u) << out;
  std::sort(lines.begin(), lines.begin() + 2);  // the two tasks' lines come in either order
  for (int rank = 0; rank < 2; ++rank) {
    std::string node = rank == 0 ? "node01" : "node02";
    std::istringstream in(lines[rank]);
    std::string label, name, socket;
    in >> label >> name >> socket;
    EXPECT_EQ(label + name, std::to_string(rank) + ":" + node) << out;
    EXPECT_NE(socket.find("/" + node + "/srun.sock"), std::string::npos)
        << out;  // each node's own agent
  }
  EXPECT_EQ(lines[2], "rc=0") << out;
  EXPECT_NE(out.find("Node node01 is not part of job " + std::to_string(other) + "'s allocation"),
            std::string::npos)
      << out;
  EXPECT_EQ(lines.back(), "other=1") << out;
}

TEST_F(Srun, StandaloneSrunAllocatesRunsAndReleases) {
  auto r = Run({"srun", "-N2", "-n4", "-l", "bash", "-c", "echo $SLURMD_NODENAME"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sorted(SplitLines(r.out)),
            (std::vector<std::string>{"0: node01", "1: node01", "2: node02", "3: node02"}));
  int64_t id = LastJobId();
  ASSERT_GT(id, 0);
  EXPECT_EQ(WaitDone(id, 5000), "COMPLETED");
  // The allocation is gone: all nodes idle again.
  auto sinfo = Run({"sinfo", "-h", "-N", "-o", "%t"});
  EXPECT_EQ(sinfo.out.find("mix"), std::string::npos) << sinfo.out;
  EXPECT_EQ(sinfo.out.find("alloc"), std::string::npos) << sinfo.out;
}

TEST_F(Srun, OutputIsLineBufferedPerTaskInOrder) {
  auto r = Run({"srun", "-N2", "-n4", "-l", "bash", "-c",
                "echo -n part-; sleep 0.$((SLURM_PROCID+1)); echo one $SLURM_PROCID; "
                "echo two $SLURM_PROCID >&2; printf 'no newline %s' $SLURM_PROCID"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out = SplitLines(r.out);
  ASSERT_EQ(out.size(), 8u) << r.out;
  for (int t = 0; t < 4; ++t) {
    std::string p = std::to_string(t) + ": ";
    auto first = std::find(out.begin(), out.end(), p + "part-one " + std::to_string(t));
    auto last = std::find(out.begin(), out.end(), p + "no newline " + std::to_string(t));
    ASSERT_NE(first, out.end()) << r.out;
    ASSERT_NE(last, out.end()) << r.out;
    EXPECT_LT(first, last);
  }
  EXPECT_EQ(Sorted(SplitLines(r.err)),
            (std::vector<std::string>{"0: two 0", "1: two 1", "2: two 2", "3: two 3"}));
}

TEST_F(Srun, ExitCodeIsTheHighestTaskExitCode) {
  auto r = Run({"srun", "-n1", "bash", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "srun: error: node01: task 0: Exited with exit code 3\n");
  EXPECT_EQ(WaitDone(LastJobId(), 5000), "FAILED");

  r = Run({"srun", "-n2", "-l", "bash", "-c", "exit $SLURM_PROCID"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "srun: error: node01: task 1: Exited with exit code 1\n");

  r = Run({"srun", "-N2", "-n4", "bash", "-c", "exit $((SLURM_PROCID * 2))"});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("srun: error: node01: task 1: Exited with exit code 2"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("srun: error: node02: task 3: Exited with exit code 6"), std::string::npos)
      << r.err;

  r = Run({"srun", "-n1", "no-such-command-xyz"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("execve(): no-such-command-xyz: No such file or directory"),
            std::string::npos)
      << r.err;
}

TEST_F(Srun, BadOptionsAndImpossibleStepsFailClearly) {
  auto r = Run({"srun", "-n1", "--bogus", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err,
            "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n");
  r = Run({"srun", "--gres=gpu:9", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("srun: error: Unable to allocate resources: Requested node configuration is "
                       "not available"),
            std::string::npos)
      << r.err;
  r = Run({"srun", "--container-image=x", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("containers are not supported"), std::string::npos) << r.err;
  int64_t id = Submit({"-N1", "--wrap", "sleep 30"});
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  r = Run({"srun", "--jobid=" + std::to_string(id), "-N2", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "srun: error: Unable to create step for job " + std::to_string(id) +
                       ": Requested node configuration is not available\n");
  Run({"scancel", std::to_string(id)});
}

// Node requirements (--mincpus, --tmp, --mem) a node cannot meet are refused at once,
// with what the largest node has; ones it meets run.
TEST_F(Srun, NodeRequirementsAreCheckedAgainstTheNodes) {
  RunResult r = Run({"srun", "--mincpus=999999", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--mincpus=999999, the largest node in partition"), std::string::npos)
      << r.err;
  EXPECT_EQ(Run({"srun", "--mincpus=16", "true"}).exit_code, 0);
  EXPECT_NE(Run({"srun", "--tmp=999999", "true"}).exit_code, 0);
  EXPECT_EQ(Run({"srun", "--tmp=0", "true"}).exit_code, 0);
  EXPECT_NE(Run({"srun", "--mem=999999", "true"}).exit_code, 0);
  EXPECT_EQ(Run({"srun", "--mem=1", "true"}).exit_code, 0);
  // scontrol shows the requirement.
  const int64_t id = Submit({"--mincpus=12", "--hold", "--wrap", "true"});
  EXPECT_NE(Run({"scontrol", "show", "job", std::to_string(id)}).out.find("MinCPUsNode=12 "),
            std::string::npos);
  Run({"scancel", std::to_string(id)});
}

// -v reports the options given, in Slurm's "defined options" table.
TEST_F(Srun, VerboseReportsTheDefinedOptions) {
  RunResult r = Run({"srun", "-v", "-n2", "--job-name=vv", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("srun: defined options\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("srun: job-name            : vv\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("srun: ntasks              : 2\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("srun: verbose             : 1\n"), std::string::npos) << r.err;
  r = Run({"srun", "-vvvv", "true"});
  EXPECT_NE(r.err.find("srun: verbose             : 4\n"), std::string::npos) << r.err;
  EXPECT_EQ(Run({"srun", "true"}).err.find("defined options"), std::string::npos);
}

TEST_F(Srun, TasksDieWhenSrunIsKilled) {
  std::string marker = work_dir() + "/task.pid";
  RunOptions opts;
  opts.timeout_ms = 3000;  // srun is SIGKILLed then
  auto r = Run({"srun", "-n1", "bash", "-c", "echo $$ > " + marker + "; exec sleep 300"}, opts);
  EXPECT_EQ(r.exit_code, 124);
  std::string s = ReadFile(marker);
  ASSERT_FALSE(s.empty());
  pid_t task = std::stoi(s);
  int64_t deadline = RealClock::MonotonicMs() + 5000;
  while (kill(task, 0) == 0 && RealClock::MonotonicMs() < deadline) usleep(50'000);
  EXPECT_NE(kill(task, 0), 0) << "task " << task << " survived its srun";
}

TEST_F(Srun, SallocRunsACommandInsideTheAllocation) {
  RunOptions opts;
  opts.extra_env.push_back("PATH=" + cluster_->BinPath("") + ":" + std::string(getenv("PATH")));
  auto r =
      Run({"salloc", "-N2", "bash", "-c",
           "echo $SLURM_JOB_ID $SLURM_NNODES $SLURM_JOB_NODELIST; srun -l printenv SLURM_STEP_ID"},
          opts);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out = SplitLines(r.out);
  ASSERT_EQ(out.size(), 3u) << r.out << r.err;
  std::string id = out[0].substr(0, out[0].find(' '));
  EXPECT_EQ(out[0], id + " 2 node[01-02]");
  EXPECT_EQ(Sorted({out[1], out[2]}), (std::vector<std::string>{"0: 0", "1: 0"}));
  EXPECT_EQ(r.err, "salloc: Granted job allocation " + id +
                       "\nsalloc: Relinquishing job allocation " + id + "\n");
  EXPECT_EQ(WaitDone(std::stoll(id), 5000), "COMPLETED");
  r = Run({"salloc", "-N1", "bash", "-c", "exit 4"}, opts);
  EXPECT_EQ(r.exit_code, 4);
}

// Debian's python3-torch under /usr/bin/python3: gloo DDP with no wrapper script, 2 nodes
// x 2 tasks; every rank must see the right layout and the all_reduce sum 1+2+3+4.
TEST_F(Srun, PytorchDdpInitFromTheStepEnvironment) {
  auto probe = RunCommand(
      {"/usr/bin/python3", "-c", "import torch.distributed as d; assert d.is_gloo_available()"});
  if (probe.exit_code != 0) GTEST_SKIP() << "python3-torch with gloo is not installed";
  std::string py = work_dir() + "/ddp.py";
  FILE* f = fopen(py.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs(
      "import os, torch, torch.distributed as dist\n"
      "dist.init_process_group('gloo', init_method='env://')\n"
      "r, w = dist.get_rank(), dist.get_world_size()\n"
      "t = torch.tensor([float(r + 1)])\n"
      "dist.all_reduce(t)\n"
      "print(f\"rank {r} world {w} local {os.environ['LOCAL_RANK']} node {os.environ['GROUP_RANK']}"
      " sum {int(t.item())}\", flush=True)\n"
      "dist.destroy_process_group()\n",
      f);
  fclose(f);
  RunOptions opts;
  opts.timeout_ms = 120'000;
  auto r = Run({"srun", "-N2", "--ntasks-per-node=2", "/usr/bin/python3", py}, opts);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Sorted(SplitLines(r.out)),
            (std::vector<std::string>{
                "rank 0 world 4 local 0 node 0 sum 10", "rank 1 world 4 local 1 node 0 sum 10",
                "rank 2 world 4 local 0 node 1 sum 10", "rank 3 world 4 local 1 node 1 sum 10"}))
      << r.err;
}

}  // namespace
}  // namespace sluice::testing
