// Step launch latency on local clusters (controller + agents on loopback), as wall time
// of whole `srun` processes (what a user waits for), median and p90 over --reps runs:
//   floors:     `/bin/true` (fork/exec/wait of the harness) and `srun --version` (srun's
//               own process start-up: dynamic loading, option parsing; no RPC);
//   4 nodes:    `srun -N1 -n1 true` and `srun -N4 -n32 true` inside an existing sbatch
//               allocation (with the batch script's SLURM_JOB_ID and SLUICE_RELAY_SOCKET:
//               through node 0's agent relay), the same with --jobid from outside the job
//               (srun's own gRPC channel to the controller), and standalone (allocation +
//               step + release);
//   64 nodes:   `srun -N64 true` on 64 agents (2 CPUs, no GPUs each), inside an
//               allocation and standalone.
// srun runs with SLUICE_LAUNCH_TRACE=1; two more columns split the step: "launch RPC" =
// LaunchStep from srun's call until every node agent has started its stepd (controller
// commit + parallel fan-out), "tasks" = from there until every task's exit reached srun
// (stepd start-up, connect back, fork/exec of the tasks, exit codes).
// Usage: bench_launch [--reps 30] [--big-nodes 64] (--big-nodes 0 skips the big cluster)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/clock.h"
#include "local/local_cluster.h"
#include "local/process.h"

namespace fs = std::filesystem;
using namespace sluice;

namespace {

struct Args {
  int reps = 30;
  int big_nodes = 64;
};

struct Stats {
  double median = 0, p90 = 0;
  int failures = 0;
  double launch_rpc = 0;  // median "step requested" -> "step launched on all nodes"
  double tasks = 0;       // median "step launched on all nodes" -> "all tasks done"
};

// Milliseconds of srun's SLUICE_LAUNCH_TRACE line for `phase`, or -1.
double TraceMs(const std::string& err, const std::string& phase) {
  std::string key = "srun: trace: " + phase + " +";
  size_t at = err.find(key);
  return at == std::string::npos ? -1 : std::atof(err.c_str() + at + key.size());
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Stats Summarize(std::vector<double> v, int failures) {
  Stats s;
  s.failures = failures;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v[v.size() / 2];
  s.p90 = v[std::min(v.size() - 1, (v.size() * 9) / 10)];
  return s;
}

// Runs argv `reps` times (after one warm-up run) and times each whole process.
Stats TimeCommand(const std::vector<std::string>& argv, int reps, const RunOptions& o) {
  std::vector<double> ms, rpc, tasks;
  int failures = 0;
  for (int i = -1; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = RunCommand(argv, o);
    double took =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r.exit_code != 0) {
      if (failures++ == 0)
        std::fprintf(stderr, "%s failed (%d): %s\n", argv[0].c_str(), r.exit_code, r.err.c_str());
      continue;
    }
    if (i < 0) continue;
    ms.push_back(took);
    double req = TraceMs(r.err, "step requested"),
           launched = TraceMs(r.err, "step launched on all nodes"),
           done = TraceMs(r.err, "all tasks done");
    if (req >= 0 && launched >= 0 && done >= 0) {
      rpc.push_back(launched - req);
      tasks.push_back(done - launched);
    }
  }
  Stats s = Summarize(std::move(ms), failures);
  s.launch_rpc = MedianOf(rpc);
  s.tasks = MedianOf(tasks);
  return s;
}

void Row(const std::string& what, const Stats& s) {
  auto ms = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", v);
    return v > 0 ? std::string(buf) : std::string("-");
  };
  std::string split = ms(s.launch_rpc), tasks = ms(s.tasks);
  std::printf("| %s | %.1f ms | %.1f ms | %s | %s |%s\n", what.c_str(), s.median, s.p90,
              split.c_str(), tasks.c_str(),
              s.failures ? (" " + std::to_string(s.failures) + " failed").c_str() : "");
  std::fflush(stdout);
}

RunOptions Opts(const LocalCluster& c, const std::string& dir) {
  RunOptions o;
  o.extra_env = c.Env();
  o.extra_env.push_back("SLUICE_LAUNCH_TRACE=1");
  o.cwd = dir;
  o.timeout_ms = 120'000;
  return o;
}

// Submits a holding batch job over `nodes` nodes and waits until it runs; 0 on failure.
int64_t HoldingJob(LocalCluster& c, const std::string& dir, int nodes) {
  RunOptions o = Opts(c, dir);
  RunResult r = RunCommand({c.BinPath("sbatch"), "--parsable", "--exclusive", "-N",
                            std::to_string(nodes), "-o", "/dev/null", "--wrap", "sleep 3600"},
                           o);
  if (r.exit_code != 0) {
    std::fprintf(stderr, "sbatch: %s\n", r.err.c_str());
    return 0;
  }
  int64_t id = std::atoll(r.out.c_str());
  int64_t deadline = RealClock::MonotonicMs() + 60'000;
  while (RealClock::MonotonicMs() < deadline) {
    RunResult q = RunCommand({c.BinPath("squeue"), "-h", "-j", std::to_string(id), "-o", "%T"}, o);
    if (q.out.rfind("RUNNING", 0) == 0) return id;
    usleep(50'000);
  }
  std::fprintf(stderr, "job %lld did not start\n", static_cast<long long>(id));
  return 0;
}

void Cancel(LocalCluster& c, const std::string& dir, int64_t id) {
  RunOptions o = Opts(c, dir);
  RunCommand({c.BinPath("scancel"), std::to_string(id)}, o);
  int64_t deadline = RealClock::MonotonicMs() + 60'000;
  while (RealClock::MonotonicMs() < deadline) {
    RunResult q = RunCommand({c.BinPath("sinfo"), "-h", "-N", "-o", "%t"}, o);
    if (q.out.find("alloc") == std::string::npos && q.out.find("mix") == std::string::npos &&
        q.out.find("comp") == std::string::npos) {
      return;
    }
    usleep(50'000);
  }
}

bool BenchCluster(const LocalClusterOptions& co, const std::string& dir, int reps,
                  const std::vector<std::vector<std::string>>& shapes) {
  LocalCluster c(co);
  if (auto st = c.Up(120'000); !st.ok()) {
    std::fprintf(stderr, "cluster: %s\n", st.message().c_str());
    c.Down();
    return false;
  }
  RunOptions o = Opts(c, dir);
  std::string srun = c.BinPath("srun");
  int64_t job = HoldingJob(c, dir, co.nodes);
  if (job > 0) {
    // Inside the job (its batch script's environment): through node 0's agent relay.
    RunOptions inside = o;
    inside.extra_env.push_back("SLURM_JOB_ID=" + std::to_string(job));
    inside.extra_env.push_back("SLUICE_RELAY_SOCKET=" + c.state_dir() + "/spool/" + c.NodeName(0) +
                               "/srun.sock");
    for (const auto& shape : shapes) {
      std::vector<std::string> argv = {srun};
      argv.insert(argv.end(), shape.begin(), shape.end());
      argv.push_back("true");
      std::string what = "`srun";
      for (const auto& a : shape) what += " " + a;
      Row(what + " true` in an allocation (" + std::to_string(co.nodes) + " nodes)",
          TimeCommand(argv, reps, inside));
      argv.insert(argv.begin() + 1, "--jobid=" + std::to_string(job));
      Row(what + " true` with --jobid from outside the job: own gRPC channel (" +
              std::to_string(co.nodes) + " nodes)",
          TimeCommand(argv, reps, o));
    }
    Cancel(c, dir, job);
  }
  for (const auto& shape : shapes) {
    std::vector<std::string> argv = {srun};
    argv.insert(argv.end(), shape.begin(), shape.end());
    argv.push_back("true");
    std::string what = "`srun";
    for (const auto& a : shape) what += " " + a;
    Row(what + " true` standalone (" + std::to_string(co.nodes) + " nodes)",
        TimeCommand(argv, reps, o));
  }
  c.Down();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps"))
      a.reps = std::max(1, v);
    else if (!std::strcmp(argv[i], "--big-nodes"))
      a.big_nodes = v;
  }
  std::string dir = fs::temp_directory_path() / ("sluice-launch-bench-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  std::printf(
      "| what | median | p90 | launch RPC (median) | tasks (median) |\n|---|---|---|---|---|\n");
  RunOptions plain;
  plain.cwd = dir;
  Row("`/bin/true` (harness fork/exec floor)", TimeCommand({"/bin/true"}, a.reps, plain));
  Row("`srun --version` (srun process start-up, no RPC)",
      TimeCommand({LocalCluster(LocalClusterOptions{}).BinPath("srun"), "--version"}, a.reps,
                  plain));

  LocalClusterOptions small;
  small.state_dir = dir + "/small";
  bool ok = BenchCluster(small, dir, a.reps, {{"-N1", "-n1"}, {"-N4", "-n32"}});

  if (ok && a.big_nodes > 0) {
    LocalClusterOptions big;
    big.state_dir = dir + "/big";
    big.nodes = a.big_nodes;
    big.cpus_per_node = 2;
    big.gpus_per_node = 0;
    big.mem_per_node_mb = 4000;
    ok = BenchCluster(big, dir, a.reps, {{"-N" + std::to_string(a.big_nodes)}});
  }
  fs::remove_all(dir);
  return ok ? 0 : 1;
}
