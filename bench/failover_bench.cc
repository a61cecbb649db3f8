// Controller failover on PostgreSQL (docs/high-availability.md): two controllers on a
// throwaway PostgreSQL server and 4 agents on loopback. Each rep takes the leader out --
// kill -9 (a crash), SIGSTOP (a hung machine: it keeps its port and connections, it just
// stops) or, as root, a network cut (`cut`: `sluice up --isolated --ha 2`, each controller
// in namespaces of its own and the database reached over the network; the leader's link
// goes down: a lost machine) -- and times, from that moment:
//   lease    a standby holds the lease (PostgreSQL's view),
//   submit   the first `sbatch` acknowledged (clients found the new leader),
//   running  that job RUNNING (the queue is scheduling again).
// A job started before each rep must still be RUNNING afterwards. The old leader is then
// restarted (a stopped one is woken, a cut one's link mended, after it stepped down) and
// stands by.
// Usage: bench_failover [--reps 5] [--lease 5] [--mode kill|stop|cut]  (--lease: SlurmctldTimeout)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "acct/pg_test_server.h"
#include "local/local_cluster.h"
#include "local/process.h"

namespace fs = std::filesystem;
using namespace sluice;

namespace {

using SteadyClock = std::chrono::steady_clock;

double Since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

class Bench {
 public:
  Bench(LocalCluster* c, std::string dir) : c_(c), dir_(std::move(dir)) {}

  RunResult Cmd(std::vector<std::string> argv) {
    argv[0] = c_->BinPath(argv[0]);
    RunOptions o;
    o.extra_env = c_->Env();
    o.cwd = dir_;
    o.timeout_ms = 10'000;
    return RunCommand(argv, o);
  }
  std::string State(const std::string& id) {
    RunResult r = Cmd({"squeue", "-h", "-t", "all", "-j", id, "-o", "%T"});
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.exit_code == 0 ? r.out : "";
  }
  std::string Submit(const std::string& wrap) {
    RunResult r = Cmd({"sbatch", "--parsable", "-o", "/dev/null", "--wrap", wrap});
    return r.exit_code == 0 ? r.out.substr(0, r.out.find_first_of(";\n")) : "";
  }
  int Leader() { return c_->LeadingController(); }
  template <typename Pred>
  bool Until(Pred pred, double limit_s) {
    auto end = SteadyClock::now() + std::chrono::milliseconds(static_cast<int>(limit_s * 1000));
    while (SteadyClock::now() < end) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  LocalCluster* c_;
  std::string dir_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, lease_s = 5;
  std::string mode = "kill";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--lease")) lease_s = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
  }
  if (mode != "kill" && mode != "stop" && mode != "cut") {
    std::fprintf(stderr, "bench_failover: --mode is kill, stop or cut\n");
    return 2;
  }
  const bool cut = mode == "cut";
  acct::PgTestServer pg;  // (cut: the cluster's own, on its network)
  if (Status st = cut ? Status::Ok() : pg.Start(); !st.ok()) {
    std::fprintf(stderr, "bench_failover: PostgreSQL: %s\n", st.message().c_str());
    return 1;
  }
  char tmpl[] = "/tmp/sluice-bench-failover-XXXXXX";
  std::string root = mkdtemp(tmpl);
  fs::permissions(root, fs::perms(0755));
  LocalClusterOptions o;
  o.state_dir = root + "/cluster";
  o.controllers = 2;
  o.isolated = cut;
  if (!cut) o.extra_config_lines = pg.StateStorageLines();
  o.extra_config_lines.push_back("SlurmctldTimeout=" + std::to_string(lease_s));
  LocalCluster cluster(o);
  if (Status st = cluster.Up(); !st.ok()) {
    std::fprintf(stderr, "bench_failover: %s\n", st.message().c_str());
    return 1;
  }
  Bench b(&cluster, root);
  std::vector<double> lease, submit, running;
  int lost = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const int old = b.Leader();
    std::string keeper = b.Submit("sleep 600");
    if (old < 0 || keeper.empty() || !b.Until([&] { return b.State(keeper) == "RUNNING"; }, 30)) {
      std::fprintf(stderr, "bench_failover: no leader or job %s did not start\n", keeper.c_str());
      break;
    }
    const pid_t pid = cluster.ControllerPid(old);
    const auto t0 = SteadyClock::now();
    if (cut) {
      if (Status st = cluster.SetControllerLink(old, false); !st.ok()) {
        std::fprintf(stderr, "bench_failover: %s\n", st.message().c_str());
        break;
      }
    } else {
      ::kill(pid, mode == "kill" ? SIGKILL : SIGSTOP);
    }
    double t_lease = -1, t_submit = -1, t_run = -1;
    if (b.Until([&] { return b.Leader() == 1 - old; }, 60)) t_lease = Since(t0);
    std::string id;
    if (b.Until([&] { return !(id = b.Submit("sleep 600")).empty(); }, 60)) t_submit = Since(t0);
    if (!id.empty() && b.Until([&] { return b.State(id) == "RUNNING"; }, 60)) t_run = Since(t0);
    const std::string kept = b.State(keeper);
    if (kept != "RUNNING") ++lost;
    std::printf(
        "rep %d (%s ctl%d): lease %.3f s, submit %.3f s, running %.3f s; job running "
        "before: %s\n",
        rep, mode.c_str(), old + 1, t_lease, t_submit, t_run, kept.c_str());
    std::fflush(stdout);
    if (t_run < 0) break;
    lease.push_back(t_lease);
    submit.push_back(t_submit);
    running.push_back(t_run);
    if (mode != "kill") {
      if (mode == "stop") ::kill(pid, SIGCONT);  // wakes up fenced: it must step down
      if (!b.Until([&] { return !ProcessAlive(pid); }, 10)) {
        std::fprintf(stderr, "bench_failover: the %s leader did not step down\n", mode.c_str());
        break;
      }
      if (cut) cluster.SetControllerLink(old, true);
    }
    b.Cmd({"scancel", keeper, id});
    if (Status st = cluster.StartControllerAt(old); !st.ok()) {
      std::fprintf(stderr, "bench_failover: restart: %s\n", st.message().c_str());
      break;
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));  // it stands by
  }
  const std::string private_pg = PrivatePgDir(o.state_dir);  // cut: the cluster's own server
  cluster.Down();
  if (!cut) pg.Stop();
  if (!private_pg.empty()) fs::remove_all(private_pg);
  fs::remove_all(root);
  if (running.empty()) return 1;
  std::printf(
      "failover (%s, SlurmctldTimeout=%d s) over %zu reps, medians: lease %.3f s, "
      "first submission %.3f s, new job running %.3f s (max %.3f s); jobs lost %d\n",
      mode.c_str(), lease_s, running.size(), Median(lease), Median(submit), Median(running),
      *std::max_element(running.begin(), running.end()), lost);
  return lost == 0 ? 0 : 1;
}
