// End-to-end step resources and step I/O: concurrent steps inside one allocation get
// disjoint GPUs and a step that does not fit waits ("step creation temporarily
// disabled") until one ends; scontrol show step; stdin forwarding and -i/-o patterns;
// --cpu-bind / --gpu-bind; a SIGKILLed standalone srun loses its allocation.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace sluice::testing {
namespace {

class SrunSteps : public ClusterTest {
 protected:
  std::string WriteScript(const std::string& name, const std::string& text) {
    std::string path = work_dir() + "/" + name;
    FILE* f = fopen(path.c_str(), "w");
    EXPECT_NE(f, nullptr);
    if (f) {
      fputs(text.c_str(), f);
      fclose(f);
    }
    return path;
  }
};

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string LineStarting(const std::string& text, const std::string& prefix) {
  for (const std::string& l : Lines(text)) {
    if (l.rfind(prefix, 0) == 0) return l;
  }
  return "";
}

TEST_F(SrunSteps, ConcurrentGpuStepsGetDisjointGpusAndAThirdWaits) {
  std::string srun = cluster_->BinPath("srun");
  std::string scontrol = cluster_->BinPath("scontrol");
  // A and B each wait (up to 15 s) for the other to have started: they print "saw"
  // only if they really ran at the same time. C needs a GPU while both are held.
  std::string step = " --exact -n1 --gpus-per-task=1 bash -c ";
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N1 -n2 --gres=gpu:2 -o steps-%j.out\n" +
      srun + step +
      "'touch a.started; for i in $(seq 150); do [ -e b.started ] && break; sleep 0.1; done; "
      "[ -e b.started ] && echo A saw B; echo A gpu $CUDA_VISIBLE_DEVICES; sleep 3' &\n" +
      srun + step +
      "'touch b.started; for i in $(seq 150); do [ -e a.started ] && break; sleep 0.1; done; "
      "[ -e a.started ] && echo B saw A; echo B gpu $CUDA_VISIBLE_DEVICES; sleep 3' &\n"
      "while [ ! -e a.started ] || [ ! -e b.started ]; do sleep 0.1; done\n" +
      scontrol + " show step $SLURM_JOB_ID | grep -E '^(StepId|   State)' | sort\n" + srun + step +
      "'echo C gpu $CUDA_VISIBLE_DEVICES'\n"
      "wait\n";
  int64_t id = Submit({WriteScript("gpu_steps.sh", script)});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string out = ReadFile("steps-" + std::to_string(id) + ".out");
  EXPECT_NE(out.find("A saw B"), std::string::npos) << out;
  EXPECT_NE(out.find("B saw A"), std::string::npos) << out;
  std::string a = LineStarting(out, "A gpu "), b = LineStarting(out, "B gpu "),
              c = LineStarting(out, "C gpu ");
  ASSERT_FALSE(a.empty()) << out;
  ASSERT_FALSE(b.empty()) << out;
  EXPECT_EQ(Lines(a.substr(6) + "\n" + b.substr(6)).size(), 2u);
  std::vector<std::string> gpus = {a.substr(6), b.substr(6)};
  std::sort(gpus.begin(), gpus.end());
  EXPECT_EQ(gpus, (std::vector<std::string>{"0", "1"})) << out;
  EXPECT_TRUE(c == "C gpu 0" || c == "C gpu 1") << out;
  std::string sid = std::to_string(id);
  EXPECT_NE(out.find("srun: Job " + sid +
                     " step creation temporarily disabled, retrying (Requested nodes are busy)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("srun: Step created for job " + sid), std::string::npos) << out;
  EXPECT_NE(out.find("StepId=" + sid + ".0 "), std::string::npos) << out;
  EXPECT_NE(out.find("StepId=" + sid + ".1 "), std::string::npos) << out;
  EXPECT_NE(out.find("   State=RUNNING"), std::string::npos) << out;
}

// One-task --exclusive steps of a -N4 job (one CPU per node) run at once, one per node:
// a node whose CPUs other steps hold is the last choice, not a reason to wait.
TEST_F(SrunSteps, ExclusiveStepsSpreadOverTheJobsNodes) {
  const int64_t id =
      Submit({"-N4", "-o", "spread.out", "--wrap",
              "for i in 1 2 3 4; do " + BinDir() +
                  "/srun -n1 --exclusive sh -c 'echo $SLURMD_NODENAME; sleep 2' & done; wait"});
  EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED");
  std::vector<std::string> nodes = Lines(ReadFile(work_dir() + "/spread.out"));
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::string>{"node01", "node02", "node03", "node04"}))
      << ReadFile(work_dir() + "/spread.out");
}

TEST_F(SrunSteps, StdinGoesToTaskZeroAndInputModesWork) {
  RunOptions in;
  in.stdin_data = "hi\nthere\n";
  auto r = Run({"srun", "cat"}, in);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hi\nthere\n");
  r = Run({"srun", "-n2", "-l", "bash", "-c", "cat; echo end $SLURM_PROCID"}, in);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: end 0", "0: hi", "0: there", "1: end 1"}))
      << r.out;
  r = Run({"srun", "-n2", "-i", "all", "cat"}, in);
  EXPECT_EQ(r.out.size(), 2 * in.stdin_data.size()) << r.out;
  r = Run({"srun", "-i", "none", "cat"}, in);
  EXPECT_EQ(r.out, "");
  WriteScript("in.1", "from file one\n");
  r = Run({"srun", "-n2", "-l", "-i", "in.%t", "bash", "-c", "cat 2>/dev/null || echo none"}, in);
  lines = Lines(r.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"1: from file one"})) << r.out << r.err;
  EXPECT_NE(r.err.find("Could not open stdin file"), std::string::npos) << r.err;  // no in.0
}

TEST_F(SrunSteps, OutputPatternsWritePerTaskFiles) {
  auto r = Run({"srun", "-N2", "-n2", "-o", "out-%j-%t-%N.txt", "-e", "err-%J.txt", "bash", "-c",
                "echo task $SLURM_PROCID; echo oops $SLURM_PROCID >&2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  int64_t id = LastJobId();
  std::string j = std::to_string(id);
  EXPECT_EQ(ReadFile("out-" + j + "-0-node01.txt"), "task 0\n");
  EXPECT_EQ(ReadFile("out-" + j + "-1-node02.txt"), "task 1\n");
  std::vector<std::string> errs = Lines(ReadFile("err-" + j + ".0.txt"));
  std::sort(errs.begin(), errs.end());
  EXPECT_EQ(errs, (std::vector<std::string>{"oops 0", "oops 1"}));
  r = Run({"srun", "-o", "/nonexistent/dir/x", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("srun: error: Could not open stdout file /nonexistent/dir/x"),
            std::string::npos)
      << r.err;
}

TEST_F(SrunSteps, CpuAndGpuBinding) {
  auto r = Run({"srun", "-N1", "-n2", "--exact", "--cpu-bind=verbose,cores", "-l", "bash", "-c",
                "grep Cpus_allowed_list /proc/self/status"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cpu-bind=MASK - node01, task  0  0 ["), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cpu-bind=MASK - node01, task  1  1 ["), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("]: mask 0x"), std::string::npos) << r.err;
  for (const std::string& l : Lines(r.out)) {  // one CPU each
    std::string list = l.substr(l.find(':', 3) + 1);
    list.erase(0, list.find_first_not_of(" \t"));
    EXPECT_EQ(list.find_first_of(",-"), std::string::npos) << l;
  }
  r = Run({"srun", "-n1", "--cpu-bind=bogus", "true"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Invalid --cpu-bind argument: bogus"), std::string::npos) << r.err;

  r = Run({"srun", "-N1", "-n2", "--gres=gpu:2", "--gpu-bind=map_gpu:1,0", "-l", "bash", "-c",
           "echo $CUDA_VISIBLE_DEVICES"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: 1", "1: 0"}));
  r = Run({"srun", "-N1", "-n2", "--gres=gpu:2", "--gpu-bind=single:1", "-l", "bash", "-c",
           "echo $CUDA_VISIBLE_DEVICES"});
  lines = Lines(r.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: 0", "1: 1"}));
  r = Run({"srun", "-N1", "-n2", "--gres=gpu:2", "--gpu-bind=none", "-l", "bash", "-c",
           "echo $CUDA_VISIBLE_DEVICES"});
  lines = Lines(r.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: 0,1", "1: 0,1"}));
}

TEST_F(SrunSteps, KilledStandaloneSrunLosesItsAllocation) {
  RunOptions opts;
  opts.timeout_ms = 3000;  // srun is SIGKILLed then
  auto r = Run({"srun", "-N2", "sleep", "300"}, opts);
  EXPECT_EQ(r.exit_code, 124);
  int64_t id = LastJobId();
  ASSERT_GT(id, 0);
  // Lease 5 s + a controller tick: released well within 12 s.
  EXPECT_EQ(WaitDone(id, 12'000), "CANCELLED");
  auto sinfo = Run({"sinfo", "-h", "-N", "-o", "%t"});
  EXPECT_EQ(sinfo.out.find("alloc"), std::string::npos) << sinfo.out;
}

TEST_F(SrunSteps, StepMemoryComesOutOfTheJobsMemory) {
  std::string srun = cluster_->BinPath("srun");
  // 1000 MB job: a 2000 MB step fails at once; two 600 MB steps cannot run together
  // (the second waits until the first ends); a step without --mem never waits.
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N1 -n2 --mem=1000 -o mem-%j.out\n" +
      srun + " --exact -n1 --mem=2000 true; echo too-big rc=$?\n" + srun +
      " --exact -n1 --mem=600 bash -c 'touch a.started; sleep 2' &\n"
      "while [ ! -e a.started ]; do sleep 0.1; done\n" +
      srun + " --exact -n1 true && echo no-mem ok\n" + srun +
      " --exact -n1 --mem=600 true && echo second ok\n"
      "wait\n";
  int64_t id = Submit({WriteScript("mem_steps.sh", script)});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string out = ReadFile("mem-" + std::to_string(id) + ".out");
  std::string sid = std::to_string(id);
  EXPECT_NE(out.find("srun: error: Unable to create step for job " + sid +
                     ": Memory required by task is not available\ntoo-big rc=1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("no-mem ok"), std::string::npos) << out;
  EXPECT_NE(out.find("srun: Job " + sid + " step creation temporarily disabled"), std::string::npos)
      << out;
  EXPECT_NE(out.find("second ok"), std::string::npos) << out;
  // The no-mem step ran while the first 600 MB step held its memory: before "second".
  EXPECT_LT(out.find("no-mem ok"), out.find("second ok")) << out;
}

TEST_F(SrunSteps, CpusPerGpuSizesEachStep) {
  std::string srun = cluster_->BinPath("srun");
  // The job has 2 GPUs x 2 CPUs. Two 1-GPU steps with --cpus-per-gpu=2 fit side by side
  // (each waits for the other to have started); 2 GPUs x 3 CPUs can never fit.
  std::string step = " -n1 --gres=gpu:1 --cpus-per-gpu=2 bash -c ";
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N1 --gres=gpu:2 --cpus-per-gpu=2 -o cpg-%j.out\n" +
      srun + " -n1 --gres=gpu:2 --cpus-per-gpu=3 true; echo too-many rc=$?\n" + srun + step +
      "'touch a.started; for i in $(seq 150); do [ -e b.started ] && break; sleep 0.1; done; "
      "[ -e b.started ] && echo A saw B cpg=$SLURM_CPUS_PER_GPU' &\n" +
      srun + step +
      "'touch b.started; for i in $(seq 150); do [ -e a.started ] && break; sleep 0.1; done; "
      "[ -e a.started ] && echo B saw A'\n"
      "wait\n";
  int64_t id = Submit({WriteScript("cpg_steps.sh", script)});
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  std::string out = ReadFile("cpg-" + std::to_string(id) + ".out");
  EXPECT_NE(out.find("srun: error: Unable to create step for job " + std::to_string(id) +
                     ": More processors requested than permitted\ntoo-many rc=1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("A saw B cpg=2"), std::string::npos) << out;
  EXPECT_NE(out.find("B saw A"), std::string::npos) << out;
}

// After crashes of the node's agent and then of the controller, the restarted agent finds
// the running step (its stepd.pid) and its registration brings the step back to the
// restarted controller: a new step does not get the GPU the surviving step still holds.
TEST_F(SrunSteps, RunningStepKeepsItsGpuAcrossAgentAndControllerRestarts) {
  std::string srun = cluster_->BinPath("srun");
  std::string step = " --exact -n1 --gpus-per-task=1 bash -c ";
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N1 -n2 --gres=gpu:2 -o keep-%j.out\n" +
      srun + step +
      "'echo A gpu $CUDA_VISIBLE_DEVICES; touch a.started; "
      "for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done' &\n"
      "for i in $(seq 600); do [ -e restarted ] && break; sleep 0.1; done\n" +
      srun + step +
      "'echo B gpu $CUDA_VISIBLE_DEVICES'\n"
      "touch go; wait\n";
  int64_t id = Submit({WriteScript("keep.sh", script)});
  int64_t deadline = RealClock::MonotonicMs() + 30'000;
  while (access((work_dir() + "/a.started").c_str(), F_OK) != 0 &&
         RealClock::MonotonicMs() < deadline) {
    usleep(50'000);
  }
  ASSERT_EQ(access((work_dir() + "/a.started").c_str(), F_OK), 0) << "step A did not start";
  std::string node = Run({"squeue", "-h", "-j", std::to_string(id), "-o", "%N"}).out;
  node.erase(node.find_last_not_of("\n") + 1);
  ASSERT_EQ(node.rfind("node", 0), 0u) << node;
  int index = std::stoi(node.substr(4)) - 1;
  cluster_->KillAgent(index, SIGKILL);
  ASSERT_TRUE(cluster_->StartAgent(index).ok());
  cluster_->KillController(SIGKILL);
  ASSERT_TRUE(cluster_->StartController().ok());
  // Wait until the node has registered again and step 0 is known once more.
  std::string want = "StepId=" + std::to_string(id) + ".0 ";
  deadline = RealClock::MonotonicMs() + 30'000;
  while (Run({"scontrol", "show", "step", std::to_string(id)}).out.find(want) ==
             std::string::npos &&
         RealClock::MonotonicMs() < deadline) {
    usleep(100'000);
  }
  ASSERT_NE(Run({"scontrol", "show", "step", std::to_string(id)}).out.find(want),
            std::string::npos);
  FILE* f = fopen((work_dir() + "/restarted").c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  EXPECT_EQ(WaitDone(id, 60'000), "COMPLETED");
  std::string out = ReadFile("keep-" + std::to_string(id) + ".out");
  std::string a = LineStarting(out, "A gpu "), b = LineStarting(out, "B gpu ");
  ASSERT_FALSE(a.empty()) << out;
  ASSERT_FALSE(b.empty()) << out;
  EXPECT_NE(a.substr(6), b.substr(6)) << out;
}

// A step's tasks on the batch node join the job's own cgroup (named in the job directory),
// never another job's of the same id on this host (another cluster, a stale copy): here
// job_<id> is already taken by a decoy holding a process.
TEST_F(SrunSteps, StepTasksJoinTheirOwnJobsCgroup) {
  std::string root = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                         ? "/sys/fs/cgroup"
                         : "/sys/fs/cgroup/memory";
  mkdir((root + "/sluice").c_str(), 0755);
  std::string decoy = root + "/sluice/job_1";
  bool made_decoy = mkdir(decoy.c_str(), 0755) == 0;
  pid_t holder = fork();
  if (holder == 0) {
    if (FILE* f = fopen((decoy + "/cgroup.procs").c_str(), "w"))
      fprintf(f, "%d", getpid()), fclose(f);
    pause();
    _exit(0);
  }
  std::string srun = cluster_->BinPath("srun");
  std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N1 -o cg-%j.out\n"
      "grep memory /proc/self/cgroup || grep '^0::' /proc/self/cgroup\n" +
      srun + " -n1 bash -c \"grep memory /proc/self/cgroup || grep '^0::' /proc/self/cgroup\"\n";
  int64_t id = Submit({WriteScript("cg.sh", script)});
  EXPECT_EQ(id, 1);
  EXPECT_EQ(WaitDone(id), "COMPLETED");
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  if (made_decoy) rmdir(decoy.c_str());
  std::istringstream out(ReadFile("cg-" + std::to_string(id) + ".out"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u) << out.str();
  if (lines[0].find("/sluice/job_") == std::string::npos) GTEST_SKIP() << "no cgroup: " << lines[0];
  std::string job_cgroup = lines[0];  // on cgroup v2 the script runs in the job's leaf "batch"
  if (job_cgroup.ends_with("/batch")) job_cgroup.resize(job_cgroup.size() - 6);
  EXPECT_EQ(lines[1], job_cgroup + "/step_0") << "the step is not in its cgroup inside the job's";
}

// A step's tasks run in a cgroup limited to the step's memory: inside the job's cgroup on
// the batch host, a cgroup of their own elsewhere (no job cgroup there); a task that
// outgrows it is OOM-killed with Slurm's message.
TEST_F(SrunSteps, StepsAreLimitedToTheirMemoryOnEveryNode) {
  // The hierarchy the stepds use: the host's, or the v2 one SLUICE_STEPD_CGROUPS names.
  const char* forced = std::getenv("SLUICE_STEPD_CGROUPS");
  std::string v2_root = forced != nullptr && forced[0] == '/' ? forced : "/sys/fs/cgroup";
  bool v1 = forced == nullptr && access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) == 0;
  bool v2 = (forced == nullptr || forced[0] == '/') &&
            access((v2_root + "/cgroup.controllers").c_str(), F_OK) == 0;
  if (!v1 && !v2) GTEST_SKIP() << "no cgroup hierarchy for jobs on this host";
  int64_t job = Submit({"-N2", "--mem=400M", "-o", "/dev/null", "--wrap", "sleep 120"});
  ASSERT_EQ(WaitState(job, {"RUNNING"}), "RUNNING");
  std::string jobid = "--jobid=" + std::to_string(job);
  // The task's cgroup, and its memory limit when the memory controller is there.
  std::string show = v1 ? "p=$(grep memory /proc/self/cgroup | cut -d: -f3); echo $p; "
                          "cat /sys/fs/cgroup/memory$p/memory.limit_in_bytes"
                        : "p=$(grep '^0::' /proc/self/cgroup | cut -d: -f3); echo $p; "
                          "cat " +
                              v2_root + "$p/memory.max 2>/dev/null";
  auto cg = Run({"srun", jobid, "-N1", "-w", "node02", "--mem=64M", "bash", "-c", show});
  EXPECT_EQ(cg.out.rfind("/sluice/job_" + std::to_string(job), 0), 0u) << cg.out << cg.err;
  if (cg.out.find("\n67108864\n") == std::string::npos) {
    GTEST_SKIP() << "no memory limit (no memory controller for jobs here?): " << cg.out;
  }
  // 300 MB held by `tail` (no newline in /dev/zero) against the step's 64 MB.
  auto hog = Run({"srun", jobid, "-N1", "-w", "node02", "--mem=64M", "bash", "-c",
                  "head -c 300M /dev/zero | tail >/dev/null"});
  EXPECT_NE(hog.exit_code, 0) << hog.err;
  EXPECT_NE(hog.err.find("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=" +
                         std::to_string(job) + ".1 cgroup."),
            std::string::npos)
      << hog.err;
  // Within its limit the same step shape runs.
  auto fits = Run({"srun", jobid, "-N1", "-w", "node02", "--mem=64M", "bash", "-c",
                   "head -c 8M /dev/zero | tail >/dev/null"});
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  // On the batch host the step's limit is its own, below the job's 400 MB there.
  auto batch_host = Run({"srun", jobid, "-N1", "-w", "node01", "--mem=64M", "bash", "-c",
                         "head -c 300M /dev/zero | tail >/dev/null"});
  EXPECT_NE(batch_host.exit_code, 0) << batch_host.err;
  EXPECT_NE(batch_host.err.find("Detected 1 oom-kill event(s) in StepId=" + std::to_string(job) +
                                ".3 cgroup."),
            std::string::npos)
      << batch_host.err;
  EXPECT_EQ(State(job), "RUNNING");  // the batch script is not touched
  Run({"scancel", std::to_string(job)});
}

}  // namespace
}  // namespace sluice::testing
