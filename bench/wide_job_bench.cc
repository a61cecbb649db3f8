// A large emulated cluster on one machine (`sluice up --agents`: a few sluiced processes
// serving all nodes over the real protocol) and one job across hundreds of its nodes.
// Phases (--phases, comma-separated; default all):
//   idle:   the controller's and the agents' CPU (% of one core) and RSS over --idle-s
//           seconds with no job (registration done, heartbeats only);
//   wide:   `sbatch -N<job-nodes> --ntasks-per-node=<tpn> --gres=gpu:8` whose script runs
//           `srun` of a trivial task; checks every RANK 0..N-1 ran once with one
//           WORLD_SIZE and one MASTER_ADDR, and reports submit -> batch script running,
//           submit -> last rank running, srun's "launch RPC" (the controller's and agents'
//           share: step committed and a stepd started on every node, SLUICE_LAUNCH_TRACE)
//           and srun -> every rank exited;
//   cancel: a running <job-nodes>-node job cancelled -> every node's stepd gone (the
//           controller's signal fan-out and the agents' kills);
//   loss:   agent process 0 (all its nodes) SIGKILLed under a running <job-nodes>-node job
//           -> the job RUNNING again on healthy nodes, against SlurmdTimeout.
// Usage: bench_wide [--nodes 640] [--agents 5] [--job-nodes 512] [--tasks-per-node 8]
//                   [--timeout 10] [--reps 3] [--idle-s 60] [--phases idle,wide,cancel,loss]
//                   [--message-timeout 60]
//                   [--bin-dir DIR]   (DIR: the daemons and commands to run; default ./bin)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/hostlist.h"
#include "local/local_cluster.h"
#include "local/node_kill.h"
#include "local/proc_scan.h"
#include "local/process.h"

namespace fs = std::filesystem;
using namespace sluice;

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Args {
  int nodes = 640, agents = 5, job_nodes = 512, tasks_per_node = 8, timeout_s = 10, reps = 3;
  int idle_s = 60;
  // MessageTimeout: one machine starts every node's stepds and tasks, so an agent's
  // answer to a step launch waits for CPU far longer than on a real node.
  int message_timeout_s = 60;
  std::string phases = "idle,wide,cancel,loss";
  std::string bin_dir;
};

double Since(SteadyClock::time_point t0) {
  return std::chrono::duration<double>(SteadyClock::now() - t0).count();
}

double EpochNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

pid_t PidOf(const LocalCluster& c, const std::string& who) {
  std::ifstream f(c.state_dir() + "/run/" + who + ".pid");
  pid_t pid = 0;
  f >> pid;
  return pid;
}

// utime + stime of `pid` in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t paren = s.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream in(s.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 0; i < 13 && in >> field; ++i) {
    if (i == 11 || i == 12) ticks += std::atof(field.c_str());  // utime, stime
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double RssMb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return 0;
}

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double l = 0;
  f >> l;
  return l;
}

class Bench {
 public:
  Bench(LocalCluster* c, std::string dir, const Args& a) : c_(c), dir_(std::move(dir)), a_(a) {}

  RunResult Cmd(std::vector<std::string> argv, int timeout_ms = 60'000) {
    argv[0] = c_->BinPath(argv[0]);
    RunOptions o;
    o.extra_env = c_->Env();
    o.cwd = dir_;
    o.timeout_ms = timeout_ms;
    return RunCommand(argv, o);
  }
  int64_t Submit(std::vector<std::string> args) {
    args.insert(args.begin(), {"sbatch", "--parsable"});
    RunResult r = Cmd(args);
    if (r.exit_code != 0) std::fprintf(stderr, "sbatch: %s", r.err.c_str());
    return r.exit_code == 0 ? std::atoll(r.out.c_str()) : 0;
  }
  // "STATE NODELIST" of a job ("" once it is gone from squeue).
  std::string Query(int64_t id) {
    RunResult r = Cmd({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-o", "%T %N"});
    return r.out.substr(0, r.out.find('\n'));
  }
  // Whether a job has ended (squeue -t all keeps it MinJobAge seconds).
  bool Ended(int64_t id) {
    std::string q = Query(id);
    for (const char* live : {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED"})
      if (q.rfind(std::string(live) + " ", 0) == 0) return false;
    return true;
  }
  template <typename Pred>
  bool Until(Pred pred, double limit_s) {
    auto t0 = SteadyClock::now();
    while (Since(t0) < limit_s) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  bool UntilState(int64_t id, const std::string& state, double limit_s, std::string* last) {
    return Until(
        [&] {
          *last = Query(id);
          return last->rfind(state + " ", 0) == 0;
        },
        limit_s);
  }
  bool AllIdle(double limit_s) {
    std::string want = std::to_string(a_.nodes) + " idle\n";
    return Until([&] { return Cmd({"sinfo", "-h", "-o", "%D %T"}).out == want; }, limit_s);
  }
  std::string Read(const std::string& name) {
    std::ifstream f(dir_ + "/" + name);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  const std::string& dir() const { return dir_; }

 private:
  LocalCluster* c_;
  std::string dir_;
  const Args& a_;
};

void Idle(LocalCluster& c, const Args& a) {
  std::this_thread::sleep_for(std::chrono::seconds(5));  // registrations settle
  pid_t ctld = PidOf(c, "sluicectld");
  std::vector<pid_t> agents;
  for (int g = 0; g < a.agents; ++g) agents.push_back(PidOf(c, "agent" + std::to_string(g)));
  auto agents_cpu = [&] {
    double s = 0;
    for (pid_t p : agents) s += CpuSeconds(p);
    return s;
  };
  double load = LoadAverage();
  double c0 = CpuSeconds(ctld), a0 = agents_cpu();
  auto t0 = SteadyClock::now();
  std::this_thread::sleep_for(std::chrono::seconds(a.idle_s));
  double wall = Since(t0);
  double ctld_pct = 100 * (CpuSeconds(ctld) - c0) / wall;
  double agents_pct = 100 * (agents_cpu() - a0) / wall;
  double agents_rss = 0;
  for (pid_t p : agents) agents_rss += RssMb(p);
  std::printf(
      "idle %d nodes, %d agent processes, %.0f s (load %.2f): controller %.2f%% of a core, "
      "RSS %.1f MB; agents %.2f%% of a core in all, RSS %.1f MB in all\n",
      a.nodes, a.agents, wall, load, ctld_pct, RssMb(ctld), agents_pct, agents_rss);
}

// srun's SLUICE_LAUNCH_TRACE line for `phase`: milliseconds since srun started, or -1.
double TraceMs(const std::string& err, const std::string& phase) {
  std::string key = "srun: trace: " + phase + " +";
  size_t at = err.find(key);
  return at == std::string::npos ? -1 : std::atof(err.c_str() + at + key.size());
}

bool Wide(LocalCluster& c, Bench& b, const Args& a) {
  const int ranks = a.job_nodes * a.tasks_per_node;
  {
    std::ofstream s(b.dir() + "/wide.sh");
    s << "#!/bin/bash\n"
         "echo start $EPOCHREALTIME\n"
         "SLUICE_LAUNCH_TRACE=1 "
      << c.BinPath("srun")
      << " bash -c 'echo rank $RANK $WORLD_SIZE $MASTER_ADDR $EPOCHREALTIME'\n"
         "echo end $EPOCHREALTIME\n";
  }
  std::vector<double> to_start, to_ranks, launch_rpc, srun_all, job_total;
  for (int rep = 0; rep < a.reps; ++rep) {
    std::string out = "wide-" + std::to_string(rep) + ".out";
    std::string err = "wide-" + std::to_string(rep) + ".err";
    double t_submit = EpochNow();
    auto t0 = SteadyClock::now();
    int64_t id = b.Submit({"--exclusive", "-N", std::to_string(a.job_nodes),
                           "--ntasks-per-node=" + std::to_string(a.tasks_per_node), "--gres=gpu:8",
                           "-o", out, "-e", err, b.dir() + "/wide.sh"});
    if (id == 0) return false;
    if (!b.Until([&] { return b.Ended(id); }, 600)) {
      std::fprintf(stderr, "wide: job %lld did not end\n", static_cast<long long>(id));
      return false;
    }
    double total = Since(t0);
    std::istringstream in(b.Read(out));
    std::string word, line;
    std::set<int> seen;
    std::set<std::string> worlds, masters;
    double start = 0, end = 0, last_rank = 0;
    while (std::getline(in, line)) {
      std::istringstream l(line);
      l >> word;
      if (word == "start") l >> start;
      if (word == "end") l >> end;
      if (word != "rank") continue;
      int rank = -1;
      std::string world, master;
      double at = 0;
      l >> rank >> world >> master >> at;
      if (!seen.insert(rank).second) std::fprintf(stderr, "wide: rank %d ran twice\n", rank);
      worlds.insert(world);
      masters.insert(master);
      last_rank = std::max(last_rank, at);
    }
    bool ok = static_cast<int>(seen.size()) == ranks && *seen.begin() == 0 &&
              *seen.rbegin() == ranks - 1 &&
              worlds == std::set<std::string>{std::to_string(ranks)} && masters.size() == 1;
    std::string trace = b.Read(err);
    double req = TraceMs(trace, "step requested"),
           launched = TraceMs(trace, "step launched on all nodes"),
           done = TraceMs(trace, "all tasks done");
    std::printf(
        "wide rep %d: job %lld, %zu ranks (%s, WORLD_SIZE %s, MASTER_ADDR %s): submit->script "
        "%.3f s, submit->last rank running %.3f s, srun launch RPC %.0f ms, srun->all ranks "
        "exited %.3f s, submit->job gone %.3f s (load %.2f)\n",
        rep, static_cast<long long>(id), seen.size(), ok ? "correct" : "WRONG",
        worlds.empty() ? "-" : worlds.begin()->c_str(),
        masters.size() == 1 ? masters.begin()->c_str() : "several", start - t_submit,
        last_rank - t_submit, launched - req, (done - req) / 1000, total, LoadAverage());
    std::fflush(stdout);
    if (!ok) return false;
    to_start.push_back(start - t_submit);
    to_ranks.push_back(last_rank - t_submit);
    launch_rpc.push_back(launched - req);
    srun_all.push_back((done - req) / 1000);
    job_total.push_back(total);
    (void)end;
  }
  std::printf(
      "wide median of %d: -N%d x %d tasks = %d ranks: submit->script %.3f s, submit->last rank "
      "running %.3f s, srun launch RPC %.0f ms, srun->all exited %.3f s, submit->job gone %.3f s\n",
      a.reps, a.job_nodes, a.tasks_per_node, ranks, Median(to_start), Median(to_ranks),
      Median(launch_rpc), Median(srun_all), Median(job_total));
  return true;
}

// A job whose step sleeps on every one of its nodes.
int64_t StartSleeper(LocalCluster& c, Bench& b, const Args& a) {
  int64_t id = b.Submit({"--exclusive", "-N", std::to_string(a.job_nodes), "-o", "/dev/null",
                         "--wrap", c.BinPath("srun") + " sleep 600"});
  std::string last;
  if (id == 0 || !b.UntilState(id, "RUNNING", 120, &last)) {
    std::fprintf(stderr, "job %lld did not start (%s)\n", static_cast<long long>(id), last.c_str());
    return 0;
  }
  return id;
}

// The live sluice-stepd processes of the cluster for job `job` (its batch script and steps).
int StepdsOf(const LocalCluster& c, const std::string& job) {
  const std::string spool = c.state_dir() + "/spool/";
  int n = 0;
  for (pid_t pid : AllPids()) {
    std::string cmd;
    for (const std::string& arg : ArgvOf(pid)) cmd += arg + " ";
    n += cmd.find("sluice-stepd") != std::string::npos && cmd.find(spool) != std::string::npos &&
         (cmd.find("/job." + job + " ") != std::string::npos ||
          cmd.find("/step." + job + ".") != std::string::npos);
  }
  return n;
}

bool Cancel(LocalCluster& c, Bench& b, const Args& a) {
  std::vector<double> secs;
  for (int rep = 0; rep < a.reps; ++rep) {
    int64_t id = StartSleeper(c, b, a);
    if (id == 0) return false;
    const std::string job = std::to_string(id);
    // The batch script's stepd and one per node for the step.
    if (!b.Until([&] { return StepdsOf(c, job) == a.job_nodes + 1; }, 60)) {
      std::fprintf(stderr, "cancel: not every node's stepd started\n");
      return false;
    }
    auto t0 = SteadyClock::now();
    b.Cmd({"scancel", std::to_string(id)});
    double acked = Since(t0);
    if (!b.Until([&] { return StepdsOf(c, job) == 0; }, 120)) {
      std::fprintf(stderr, "cancel: stepds still running after 120 s\n");
      return false;
    }
    secs.push_back(Since(t0));
    std::printf(
        "cancel rep %d: %d-node job: scancel returned after %.3f s, every node's stepd gone "
        "after %.3f s (load %.2f)\n",
        rep, a.job_nodes, acked, secs.back(), LoadAverage());
    std::fflush(stdout);
  }
  std::printf("cancel median of %d: %.3f s\n", a.reps, Median(secs));
  return true;
}

bool Loss(LocalCluster& c, Bench& b, const Args& a) {
  auto dead = ExpandHostlist(c.AgentGroupNodes(0));
  if (!dead.ok()) return false;
  const std::set<std::string> dead_nodes(dead->begin(), dead->end());
  std::vector<double> secs;
  for (int rep = 0; rep < a.reps; ++rep) {
    int64_t id = StartSleeper(c, b, a);
    if (id == 0) return false;
    std::string last = b.Query(id);
    auto nodes = ExpandHostlist(last.substr(last.find(' ') + 1));
    bool hit = false;
    for (const std::string& n : nodes.ok() ? *nodes : std::vector<std::string>{})
      hit |= dead_nodes.count(n) > 0;
    if (!hit) {
      std::fprintf(stderr, "loss: the job has no node of agent 0\n");
      return false;
    }
    auto t0 = SteadyClock::now();
    KillAgentGroupProcesses(c, 0);
    bool back = b.Until(
        [&] {
          last = b.Query(id);
          if (last.rfind("RUNNING ", 0) != 0) return false;
          auto now = ExpandHostlist(last.substr(8));
          if (!now.ok()) return false;
          for (const std::string& n : *now)
            if (dead_nodes.count(n)) return false;
          return true;
        },
        a.timeout_s + 120);
    double s = Since(t0);
    if (!back) {
      std::fprintf(stderr, "loss: job %lld not running again (%s)\n", static_cast<long long>(id),
                   last.c_str());
      return false;
    }
    secs.push_back(s);
    std::printf(
        "loss rep %d: agent of %zu nodes killed under a %d-node job -> RUNNING again on healthy "
        "nodes after %.3f s = SlurmdTimeout %d s + %.3f s (load %.2f)\n",
        rep, dead_nodes.size(), a.job_nodes, s, a.timeout_s, s - a.timeout_s, LoadAverage());
    std::fflush(stdout);
    b.Cmd({"scancel", std::to_string(id)});
    if (Status st = c.StartAgentGroup(0); !st.ok()) {
      std::fprintf(stderr, "loss: restart agent 0: %s\n", st.message().c_str());
      return false;
    }
    b.Cmd({"scontrol", "update", "nodename=" + c.AgentGroupNodes(0), "state=resume"});
    if (!b.AllIdle(120)) {
      std::fprintf(stderr, "loss: nodes not idle again\n");
      return false;
    }
  }
  std::printf("loss median of %d: %.3f s = SlurmdTimeout %d s + %.3f s\n", a.reps, Median(secs),
              a.timeout_s, Median(secs) - a.timeout_s);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--nodes")
      a.nodes = std::atoi(v);
    else if (k == "--agents")
      a.agents = std::atoi(v);
    else if (k == "--job-nodes")
      a.job_nodes = std::atoi(v);
    else if (k == "--tasks-per-node")
      a.tasks_per_node = std::atoi(v);
    else if (k == "--timeout")
      a.timeout_s = std::atoi(v);
    else if (k == "--reps")
      a.reps = std::atoi(v);
    else if (k == "--idle-s")
      a.idle_s = std::atoi(v);
    else if (k == "--message-timeout")
      a.message_timeout_s = std::atoi(v);
    else if (k == "--phases")
      a.phases = v;
    else if (k == "--bin-dir")
      a.bin_dir = v;
    else {
      std::fprintf(stderr, "bench_wide: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  auto want = [&](const std::string& p) {
    return ("," + a.phases + ",").find("," + p + ",") != std::string::npos;
  };
  char tmpl[] = "/tmp/sluice-bench-wide-XXXXXX";
  std::string root = mkdtemp(tmpl);
  fs::permissions(root, fs::perms(0755));
  LocalClusterOptions o;
  o.state_dir = root + "/cluster";
  if (!a.bin_dir.empty()) o.bin_dir = fs::absolute(a.bin_dir);
  o.nodes = a.nodes;
  o.agents = a.agents;
  o.cpus_per_node = a.tasks_per_node;
  o.gpus_per_node = 8;
  o.slurmd_timeout_s = a.timeout_s;
  o.kill_wait_s = 2;
  o.extra_config_lines.push_back("MessageTimeout=" + std::to_string(a.message_timeout_s));
  LocalCluster cluster(o);
  auto t0 = SteadyClock::now();
  if (Status st = cluster.Up(300'000); !st.ok()) {
    std::fprintf(stderr, "bench_wide: %s\n", st.message().c_str());
    cluster.Down();
    return 1;
  }
  std::printf("up: %d nodes on %d agent processes, all idle after %.2f s (SlurmdTimeout %d s)\n",
              a.nodes, a.agents, Since(t0), a.timeout_s);
  std::fflush(stdout);
  Bench b(&cluster, root, a);
  bool ok = true;
  if (want("idle")) Idle(cluster, a);
  if (ok && want("wide")) ok = Wide(cluster, b, a);
  if (ok && want("cancel")) ok = Cancel(cluster, b, a);
  if (ok && want("loss")) ok = Loss(cluster, b, a);
  cluster.Down();
  if (ok) {
    fs::remove_all(root);
  } else {
    std::fprintf(stderr, "bench_wide: cluster state and logs kept in %s\n", root.c_str());
  }
  return ok ? 0 : 1;
}
