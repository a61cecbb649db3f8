// Time from a node's death to its job running again elsewhere, on a local cluster
// (controller + 4 agents on loopback). Each rep: submit a one-node `sleep` job, wait
// until it runs, SIGKILL its node's agent and job processes (local/node_kill.h), and
// time until squeue shows the requeued job RUNNING on another node. Then the job is
// cancelled and the dead agent restarted for the next rep.
// Usage: bench_requeue [--reps 5] [--timeout 3]   (--timeout = SlurmdTimeout seconds)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "local/local_cluster.h"
#include "local/node_kill.h"
#include "local/process.h"

namespace fs = std::filesystem;
using namespace sluice;

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Job {
  std::string state;
  std::string node;
};

class Bench {
 public:
  explicit Bench(LocalCluster* c, std::string dir) : c_(c), dir_(std::move(dir)) {}

  RunResult Cmd(std::vector<std::string> argv) {
    argv[0] = c_->BinPath(argv[0]);
    RunOptions o;
    o.extra_env = c_->Env();
    o.cwd = dir_;
    return RunCommand(argv, o);
  }
  Job Query(const std::string& id) {
    RunResult r = Cmd({"squeue", "-h", "-t", "all", "-j", id, "-o", "%T %N"});
    Job j;
    size_t sp = r.out.find(' ');
    if (sp == std::string::npos) return j;
    j.state = r.out.substr(0, sp);
    j.node = r.out.substr(sp + 1);
    while (!j.node.empty() && j.node.back() == '\n') j.node.pop_back();
    return j;
  }
  // Polls until `pred` holds or `limit_s` pass; false on timeout.
  template <typename Pred>
  bool Until(const std::string& id, Pred pred, double limit_s, Job* last) {
    auto end = SteadyClock::now() + std::chrono::milliseconds(static_cast<int>(limit_s * 1000));
    while (SteadyClock::now() < end) {
      *last = Query(id);
      if (pred(*last)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  LocalCluster* c_;
  std::string dir_;
};

int NodeIndex(const std::string& name) { return std::stoi(name.substr(4)) - 1; }  // nodeNN

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, timeout_s = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--timeout")) timeout_s = std::atoi(argv[i + 1]);
  }
  char tmpl[] = "/tmp/sluice-bench-requeue-XXXXXX";
  std::string root = mkdtemp(tmpl);
  fs::permissions(root, fs::perms(0755));
  LocalClusterOptions o;
  o.state_dir = root + "/cluster";
  o.slurmd_timeout_s = timeout_s;
  o.kill_wait_s = 2;
  LocalCluster cluster(o);
  if (Status st = cluster.Up(); !st.ok()) {
    std::fprintf(stderr, "bench_requeue: %s\n", st.message().c_str());
    return 1;
  }
  Bench b(&cluster, root);
  std::vector<double> secs;
  for (int rep = 0; rep < reps; ++rep) {
    RunResult sub = b.Cmd({"sbatch", "--parsable", "-o", "/dev/null", "--wrap", "sleep 600"});
    std::string id = sub.out.substr(0, sub.out.find_first_of(";\n"));
    Job j;
    if (sub.exit_code != 0 || !b.Until(
                                  id, [](const Job& x) { return x.state == "RUNNING"; }, 30, &j)) {
      std::fprintf(stderr, "bench_requeue: job %s did not start: %s\n", id.c_str(),
                   sub.err.c_str());
      break;
    }
    std::string dead = j.node;
    int idx = NodeIndex(dead);
    auto t0 = SteadyClock::now();
    KillNodeProcesses(cluster, idx);
    bool back = b.Until(
        id, [&](const Job& x) { return x.state == "RUNNING" && x.node != dead; }, timeout_s + 60,
        &j);
    double s = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    if (!back) {
      std::fprintf(stderr, "bench_requeue: job %s not running again (%s)\n", id.c_str(),
                   j.state.c_str());
      break;
    }
    secs.push_back(s);
    std::printf("rep %d: job %s on %s -> %s after %.3f s (timeout %d s + %.3f s)\n", rep,
                id.c_str(), dead.c_str(), j.node.c_str(), s, timeout_s, s - timeout_s);
    std::fflush(stdout);
    b.Cmd({"scancel", id});
    if (Status st = cluster.StartAgent(idx); !st.ok()) {
      std::fprintf(stderr, "bench_requeue: restart of %s: %s\n", dead.c_str(),
                   st.message().c_str());
      break;
    }
    (void)cluster.WaitNodesIdle(60'000);
  }
  cluster.Down();
  fs::remove_all(root);
  if (secs.empty()) return 1;
  std::sort(secs.begin(), secs.end());
  double med = secs[secs.size() / 2];
  std::printf(
      "node death -> requeued job RUNNING: median %.3f s over %zu reps "
      "(min %.3f, max %.3f) = SlurmdTimeout %d s + %.3f s\n",
      med, secs.size(), secs.front(), secs.back(), timeout_s, med - timeout_s);
  return 0;
}
