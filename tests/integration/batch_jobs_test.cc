// End-to-end batch jobs on a real controller + 4 agents: run, fail, cancel, GPUs, drain,
// rejection at submit, and what squeue/sinfo --json say of them (what torchx parses).
#include <signal.h>
#include <unistd.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

using BatchJobs = ClusterTest;

std::set<std::string> SplitCsv(const std::string& s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
    if (!item.empty()) out.insert(item);
  }
  return out;
}

TEST_F(BatchJobs, SubmitRunsAndCompletesWithOutputFile) {
  int64_t id =
      Submit({"-J", "hello", "--wrap", "echo hello from $SLURM_JOB_ID on $SLURMD_NODENAME"});
  ASSERT_GT(id, 0);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string out = ReadFile("slurm-" + std::to_string(id) + ".out");
  EXPECT_EQ(out, "hello from " + std::to_string(id) + " on node01\n");
  auto show = Run({"scontrol", "show", "job", std::to_string(id)});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_NE(show.out.find("JobState=COMPLETED"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("ExitCode=0:0"), std::string::npos) << show.out;
}

TEST_F(BatchJobs, NonZeroExitIsFailedWithExitCode) {
  int64_t id = Submit({"-o", "exit3-%j.out", "--wrap", "echo about to exit 3; exit 3"});
  EXPECT_EQ(WaitDone(id), "FAILED");
  auto show = Run({"scontrol", "show", "job", std::to_string(id)});
  EXPECT_NE(show.out.find("ExitCode=3:0"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Reason=NonZeroExitCode"), std::string::npos) << show.out;
  EXPECT_EQ(ReadFile("exit3-" + std::to_string(id) + ".out"), "about to exit 3\n");
  auto sq = Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%t %r"});
  EXPECT_EQ(sq.out, "F NonZeroExitCode\n");
}

TEST_F(BatchJobs, ScancelKillsTheWholeProcessTree) {
  std::string marker = work_dir() + "/grandchild.pid";
  int64_t id =
      Submit({"--wrap", "bash -c 'sleep 300 & echo $! > " + marker + "; wait' ; sleep 300"});
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  pid_t grandchild = 0;
  for (int i = 0; i < 200 && grandchild == 0; ++i) {
    std::string s = ReadFile(marker);
    if (!s.empty())
      grandchild = std::stoi(s);
    else
      usleep(20'000);
  }
  ASSERT_GT(grandchild, 0);
  ASSERT_EQ(kill(grandchild, 0), 0);
  auto r = Run({"scancel", std::to_string(id)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(WaitDone(id), "CANCELLED");
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = kill(grandchild, 0) != 0;
    if (!gone) usleep(20'000);
  }
  EXPECT_TRUE(gone) << "process " << grandchild << " of the cancelled job still runs";
}

TEST_F(BatchJobs, MultiNodeScriptRunsOnceOnTheFirstNode) {
  int64_t id = Submit({"-N", "2", "--gres=gpu:2", "-o", "/dev/null", "--wrap",
                       "echo $SLURMD_NODENAME $SLURM_JOB_NODELIST $SLURM_JOB_NUM_NODES "
                       "$CUDA_VISIBLE_DEVICES >> where.log"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile("where.log"), "node01 node[01-02] 2 0,1\n");
}

TEST_F(BatchJobs, TwoJobsOnOneNodeGetDisjointGpus) {
  int64_t a = Submit({"-w", "node02", "--gres=gpu:3", "-o", "a.out", "--wrap",
                      "echo $CUDA_VISIBLE_DEVICES; sleep 2"});
  int64_t b = Submit({"-w", "node02", "--gres=gpu:4", "-o", "b.out", "--wrap",
                      "echo $CUDA_VISIBLE_DEVICES; sleep 2"});
  EXPECT_EQ(WaitState(a, {"RUNNING", "COMPLETED"}), "RUNNING");
  EXPECT_EQ(WaitState(b, {"RUNNING", "COMPLETED"}), "RUNNING");
  EXPECT_EQ(WaitDone(a), "COMPLETED");
  EXPECT_EQ(WaitDone(b), "COMPLETED");
  auto ga = SplitCsv(ReadFile("a.out"));
  auto gb = SplitCsv(ReadFile("b.out"));
  EXPECT_EQ(ga.size(), 3u);
  EXPECT_EQ(gb.size(), 4u);
  for (const auto& g : ga) EXPECT_EQ(gb.count(g), 0u) << "GPU " << g << " given to both jobs";
}

TEST_F(BatchJobs, DrainedNodeGetsNoJobs) {
  auto r = Run({"scontrol", "update", "NodeName=node01", "State=DRAIN", "Reason=maintenance"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(Submit({"-o", "/dev/null", "--wrap", "sleep 1"}));
  for (auto id : ids) EXPECT_EQ(WaitDone(id), "COMPLETED");
  for (auto id : ids) {
    auto q = Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%N"});
    EXPECT_NE(q.out, "node01\n") << "job " << id << " ran on the drained node";
  }
  auto sinfo = Run({"sinfo", "-h", "-N", "-o", "%N %t"});
  EXPECT_NE(sinfo.out.find("node01 drain"), std::string::npos) << sinfo.out;
  auto reason = Run({"sinfo", "-R", "-h", "-o", "%E"});
  EXPECT_EQ(reason.out, "maintenance\n");
  EXPECT_EQ(Run({"scontrol", "update", "NodeName=node01", "State=RESUME"}).exit_code, 0);
  int64_t pinned = Submit({"-w", "node01", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(WaitDone(pinned), "COMPLETED");
}

TEST_F(BatchJobs, ImpossibleRequestsAreRejectedAtSubmit) {
  const std::string node_config =
      "sbatch: error: Batch job submission failed: Requested node configuration is not available\n";
  auto r = Run({"sbatch", "--gres=gpu:9", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: GPU count per node can not be satisfied: 9 GPUs (gpu) on one node, "
            "the largest node in partition gpu has 8\n" +
                node_config);
  r = Run({"sbatch", "-c", "64", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: CPU count per task can not be satisfied: --cpus-per-task=64, the "
            "largest node in partition gpu has 16 CPUs\n" +
                node_config);
  r = Run({"sbatch", "--mem=9999999", "--wrap", "true"});  // reference sbatch_errors.txt
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbatch: error: Memory specification can not be satisfied\n" + node_config);
  r = Run({"sbatch", "-p", "nosuch", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: invalid partition specified: nosuch\n"
            "sbatch: error: Batch job submission failed: Invalid partition name specified\n");
  r = Run({"srun", "-p", "nosuch", "true"});  // reference srun_errors.txt
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "srun: error: invalid partition specified: nosuch\n"
            "srun: error: Unable to allocate resources: Invalid partition name specified\n");
  r = Run({"sbatch", "-C", "nvme", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "sbatch: error: invalid feature specified: nvme\n"
            "sbatch: error: Batch job submission failed: Invalid feature specification\n");
  r = Run({"sbatch", "--mem=1.5G", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "sbatch: error: Invalid --mem specification\n");
  r = Run({"sbatch", "-N", "5", "--exclusive", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  r = Run({"sbatch", "--time=abc", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "sbatch: error: Invalid --time specification\n");
  r = Run({"sbatch", "--bogus-option", "--wrap", "true"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(
      r.err,
      "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n");
  auto q = Run({"squeue", "-h", "-t", "all"});
  EXPECT_EQ(q.out, "") << "rejected jobs must not be queued";
}

TEST_F(BatchJobs, CpusPerGpuSizesTheCpuShare) {
  const int64_t id = Submit({"-o", "cpg.out", "--gres=gpu:2", "--cpus-per-gpu=3", "--wrap",
                             "echo $SLURM_CPUS_ON_NODE $SLURM_CPUS_PER_GPU"});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile("cpg.out"), "6 3\n");
  // 8 GPUs x 4 CPUs = 32 CPUs: more than a 16-CPU node has.
  auto r = Run({"sbatch", "--gres=gpu:8", "--cpus-per-gpu=4", "--wrap", "true"});
  EXPECT_EQ(r.err,
            "sbatch: error: CPU count per node can not be satisfied: 32 CPUs on one node (4 CPUs "
            "per GPU), the largest node in partition gpu has 16 CPUs\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");
  r = Run({"sbatch", "--gres=gpu:1", "--cpus-per-gpu=2", "-c", "2", "--wrap", "true"});
  EXPECT_EQ(r.err,
            "sbatch: error: Batch job submission failed: --cpus-per-gpu is incompatible with "
            "--cpus-per-task\n");
}

TEST_F(BatchJobs, TimeLimitEndsInTimeout) {
  int64_t id = Submit({"--time=1", "-o", "t.out", "--wrap",
                       "trap 'echo got TERM' TERM; sleep 300 & wait; sleep 300"});
  EXPECT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  EXPECT_EQ(WaitDone(id, 90'000), "TIMEOUT");
  EXPECT_NE(ReadFile("t.out").find("got TERM"), std::string::npos);
}

TEST_F(BatchJobs, SqueueAndSinfoJsonShowARunningJobAsTorchxReadsIt) {
  int64_t id =
      Submit({"-J", "trainer", "-N2", "--gres=gpu:2", "-o", "/dev/null", "--wrap", "sleep 30"});
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  auto q = Run({"squeue", "--json", "-j", std::to_string(id)});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  auto jobs = nlohmann::json::parse(q.out)["jobs"];
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["job_id"], id);
  EXPECT_EQ(jobs[0]["name"], "trainer");
  EXPECT_EQ(jobs[0]["job_state"], "RUNNING");
  EXPECT_EQ(jobs[0]["node_count"], 2);
  EXPECT_EQ(jobs[0]["tres_per_node"], "gres:gpu:2");
  std::set<std::string> hosts;
  for (const auto& n : jobs[0]["job_resources"]["allocated_nodes"]) hosts.insert(n["nodename"]);
  EXPECT_EQ(hosts.size(), 2u);
  std::string nodelist = Run({"squeue", "-h", "-j", std::to_string(id), "-o", "%N"}).out;
  EXPECT_EQ(jobs[0]["nodes"], nodelist.substr(0, nodelist.find('\n')));
  auto i = Run({"sinfo", "--json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  auto nodes = nlohmann::json::parse(i.out)["nodes"];
  ASSERT_EQ(nodes.size(), 4u);
  int busy = 0;
  for (const auto& n : nodes) {
    if (hosts.count(n["name"])) {
      EXPECT_EQ(n["gres_used"], "gpu:2") << n["name"];
      ++busy;
    } else {
      EXPECT_EQ(n["state"], "idle") << n["name"];
    }
  }
  EXPECT_EQ(busy, 2);
  Run({"scancel", std::to_string(id)});
  EXPECT_EQ(WaitDone(id), "CANCELLED");
  // Finished jobs are listed too (Slurm 22.05 shows every state with --json).
  auto after = nlohmann::json::parse(Run({"squeue", "--json"}).out)["jobs"];
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0]["job_state"], "CANCELLED");
}

TEST_F(BatchJobs, BeginTimeHoldsTheJobUntilThen) {
  // As Slurm's own test_122_1: an array held until midnight, cancelled while it waits.
  auto later = Run({"sbatch", "--parsable", "-N", "1", "--array=0-7", "--begin=midnight",
                    "--output=/dev/null", "--wrap=sleep 10"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  std::string array_id = later.out.substr(0, later.out.find('\n'));
  auto waiting = Run({"squeue", "-h", "-j", array_id, "-o", "%T %r"});
  EXPECT_EQ(waiting.out, "PENDING BeginTime\n") << waiting.out;
  EXPECT_EQ(Run({"scancel", array_id}).exit_code, 0);
  // A begin time a moment away: pending with reason BeginTime, then it runs.
  int64_t id = Submit({"--begin=now+2", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(Run({"squeue", "-h", "-j", std::to_string(id), "-o", "%r"}).out, "BeginTime\n");
  EXPECT_EQ(WaitDone(id, 30'000), "COMPLETED");
  auto bad = Run({"sbatch", "--begin=someday", "--wrap", "true"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("Invalid time specification someday"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace sluice::testing
