// End-to-end throughput on a local cluster (controller + 4 agents on loopback):
//   1. sequential `sbatch` processes (what a user loop does),
//   2. a parallel client (T threads submitting over gRPC),
//   3. time to run N trivial jobs to completion.
// Usage: bench_submit [--jobs 1000] [--seq 200] [--threads 8] [--reps 3]
// With --prefill P it measures instead the same parallel submission with P jobs pending:
// one job holds 3 of the 4 nodes, P eligible 4-node jobs wait behind it (every pass
// considers them all), then (a) parallel held submissions, (b) parallel eligible
// submissions and (c) the latency of a scheduling pass seen from outside: the time from
// submitting a 1-node job that backfills onto the free node to it being RUNNING. Each
// is measured on the empty queue first, in the same cluster.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client.grpc.pb.h"
#include "common/clock.h"
#include "local/local_cluster.h"
#include "local/process.h"
#include "rpc/credential.h"
#include "rpc/ident_server.h"

namespace fs = std::filesystem;
using namespace sluice;

namespace {

struct Args {
  int jobs = 1000;
  int seq = 200;
  int threads = 8;
  int reps = 3;
  int prefill = 0;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

JobSpec TrivialJob(const std::string& dir) {
  JobSpec s;
  s.set_name("bench");
  s.set_script("#!/bin/sh\ntrue\n");
  s.set_work_dir(dir);
  s.set_stdout_pattern("/dev/null");
  s.add_env("PATH=/usr/bin:/bin");
  return s;
}

class Client {
 public:
  Client(const std::string& addr, const std::string& sock) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.use_local_subchannel_pool", 1);  // one connection per client
    stub_ = ClientApi::NewStub(
        grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args));
    token_ = FetchCredentialToken(sock).value();
  }
  bool Submit(const JobSpec& spec, int64_t* id = nullptr) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(kCredMetadataKey, token_);
    SubmitRequest req;
    *req.mutable_spec() = spec;
    SubmitReply rep;
    bool ok = stub_->SubmitJob(&ctx, req, &rep).ok();
    if (ok && id) *id = rep.job_id();
    return ok;
  }
  // State of one job (-1 on error).
  int State(int64_t id) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(kCredMetadataKey, token_);
    GetJobsRequest req;
    req.add_job_ids(id);
    GetJobsReply rep;
    if (!stub_->GetJobs(&ctx, req, &rep).ok() || rep.jobs_size() != 1) return -1;
    return rep.jobs(0).state();
  }
  int Unfinished() {
    grpc::ClientContext ctx;
    ctx.AddMetadata(kCredMetadataKey, token_);
    GetJobsReply rep;
    if (!stub_->GetJobs(&ctx, GetJobsRequest(), &rep).ok()) return -1;
    int n = 0;
    for (const auto& j : rep.jobs())
      n += j.spec().name() == "bench-run" && j.state() <= JOB_COMPLETING;
    return n;
  }

 private:
  std::unique_ptr<ClientApi::Stub> stub_;
  std::string token_;
};

double SequentialSbatch(LocalCluster& c, int n, const std::string& dir) {
  int64_t t0 = RealClock::MonotonicMs();
  RunOptions o;
  o.extra_env = c.Env();
  o.cwd = dir;
  for (int i = 0; i < n; ++i) {
    auto r = RunCommand({c.BinPath("sbatch"), "-o", "/dev/null", "--hold", "--wrap", "true"}, o);
    if (r.exit_code != 0) std::fprintf(stderr, "sbatch failed: %s\n", r.err.c_str());
  }
  return n * 1000.0 / std::max<int64_t>(1, RealClock::MonotonicMs() - t0);
}

double ParallelSubmitSpec(LocalCluster& c, int n, int threads, const JobSpec& spec) {
  std::string addr = c.CtldAddress();
  std::string sock = c.state_dir() + "/state/ident.sock";
  std::atomic<int> next{0}, failed{0};
  int64_t t0 = RealClock::MonotonicMs();
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      Client cl(addr, sock);
      while (next.fetch_add(1) < n)
        if (!cl.Submit(spec)) failed++;
    });
  for (auto& t : ts) t.join();
  if (failed) std::fprintf(stderr, "%d submissions failed\n", failed.load());
  return n * 1000.0 / std::max<int64_t>(1, RealClock::MonotonicMs() - t0);
}

double ParallelSubmit(LocalCluster& c, int n, int threads, const std::string& dir, bool hold,
                      const std::string& name = "bench") {
  JobSpec spec = TrivialJob(dir);
  spec.set_hold(hold);
  spec.set_name(name);
  return ParallelSubmitSpec(c, n, threads, spec);
}

// Eligible jobs that cannot start while the blocker holds 3 of the 4 nodes.
JobSpec WaitingJob(const std::string& dir) {
  JobSpec s = TrivialJob(dir);
  s.set_name("bench-wait");
  s.set_min_nodes(4);
  s.set_time_limit_min(10);
  return s;
}

// Submits a job and waits until it is RUNNING (or done); -1 on failure.
bool WaitState(Client& cl, int64_t id, int at_least, int64_t timeout_ms) {
  int64_t end = RealClock::MonotonicMs() + timeout_ms;
  while (RealClock::MonotonicMs() < end) {
    int st = cl.State(id);
    if (st >= at_least) return true;
    usleep(1000);
  }
  return false;
}

// Median ms from submitting a 1-node, 1-minute job (it backfills onto the free node)
// to seeing it RUNNING; polls every 1 ms.
double ProbeLatencyMs(LocalCluster& c, const std::string& dir, int probes) {
  Client cl(c.CtldAddress(), c.state_dir() + "/state/ident.sock");
  JobSpec spec = TrivialJob(dir);
  spec.set_name("bench-probe");
  spec.set_min_nodes(1);
  spec.set_ntasks(1);
  spec.set_time_limit_min(1);
  std::vector<double> ms;
  for (int i = 0; i < probes; ++i) {
    int64_t id = 0;
    int64_t t0 = RealClock::MonotonicMs();
    if (!cl.Submit(spec, &id) || !WaitState(cl, id, JOB_RUNNING, 120'000)) {
      std::fprintf(stderr, "probe job did not start\n");
      return -1;
    }
    ms.push_back(static_cast<double>(RealClock::MonotonicMs() - t0));
    // Let it finish so the free node is free again for the next probe.
    WaitState(cl, id, JOB_COMPLETED, 120'000);
  }
  return Median(ms);
}

struct PrefillResult {
  double held_empty, held_full, wait_empty, wait_full, probe_empty, probe_full, prefill_rate;
};

// See the header comment. Returns false when the cluster could not be set up.
bool PrefillRun(LocalCluster& c, const Args& a, const std::string& dir, PrefillResult* r) {
  Client cl(c.CtldAddress(), c.state_dir() + "/state/ident.sock");
  JobSpec blocker = TrivialJob(dir);
  blocker.set_name("bench-blocker");
  blocker.set_script("#!/bin/sh\nsleep 3600\n");
  blocker.set_min_nodes(3);
  blocker.set_exclusive(true);
  blocker.set_time_limit_min(60);
  int64_t bid = 0;
  if (!cl.Submit(blocker, &bid) || !WaitState(cl, bid, JOB_RUNNING, 60'000)) {
    std::fprintf(stderr, "blocker job did not start\n");
    return false;
  }
  int n = a.jobs * 5;
  r->probe_empty = ProbeLatencyMs(c, dir, 5);
  r->held_empty = ParallelSubmit(c, n, a.threads, dir, true);
  r->wait_empty = ParallelSubmitSpec(c, n, a.threads, WaitingJob(dir));
  int rest = std::max(0, a.prefill - n);  // the eligible jobs above count towards the prefill
  r->prefill_rate = ParallelSubmitSpec(c, rest, a.threads, WaitingJob(dir));
  r->held_full = ParallelSubmit(c, n, a.threads, dir, true);
  r->wait_full = ParallelSubmitSpec(c, n, a.threads, WaitingJob(dir));
  r->probe_full = ProbeLatencyMs(c, dir, 5);
  return true;
}

double RunToCompletion(LocalCluster& c, int n, int threads, const std::string& dir) {
  int64_t t0 = RealClock::MonotonicMs();
  ParallelSubmit(c, n, threads, dir, false, "bench-run");
  Client cl(c.CtldAddress(), c.state_dir() + "/state/ident.sock");
  while (cl.Unfinished() != 0) usleep(20'000);
  return (RealClock::MonotonicMs() - t0) / 1000.0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--jobs"))
      a.jobs = v;
    else if (!std::strcmp(argv[i], "--seq"))
      a.seq = v;
    else if (!std::strcmp(argv[i], "--threads"))
      a.threads = v;
    else if (!std::strcmp(argv[i], "--reps"))
      a.reps = v;
    else if (!std::strcmp(argv[i], "--prefill"))
      a.prefill = v;
  }
  std::vector<double> seq, par, done;
  std::vector<PrefillResult> pre;
  for (int r = 0; r < a.reps; ++r) {
    std::string dir = fs::temp_directory_path() / ("sluice-bench-" + std::to_string(getpid()));
    fs::remove_all(dir);
    LocalClusterOptions o;
    o.state_dir = dir + "/cluster";
    LocalCluster c(o);
    if (auto st = c.Up(); !st.ok()) {
      std::fprintf(stderr, "cluster: %s\n", st.message().c_str());
      c.Down();
      return 1;
    }
    if (a.prefill > 0) {
      PrefillResult pr{};
      bool ok = PrefillRun(c, a, dir, &pr);
      c.Down();
      fs::remove_all(dir);
      if (!ok) return 1;
      std::fprintf(stderr,
                   "rep %d: held %.0f/s empty, %.0f/s with %d pending; eligible %.0f/s empty, "
                   "%.0f/s full; prefill %.0f/s; probe %.1f ms empty, %.1f ms full\n",
                   r + 1, pr.held_empty, pr.held_full, a.prefill, pr.wait_empty, pr.wait_full,
                   pr.prefill_rate, pr.probe_empty, pr.probe_full);
      pre.push_back(pr);
      continue;
    }
    seq.push_back(SequentialSbatch(c, a.seq, dir));
    par.push_back(ParallelSubmit(c, a.jobs * 5, a.threads, dir, true));
    done.push_back(RunToCompletion(c, a.jobs, a.threads, dir));
    c.Down();
    fs::remove_all(dir);
    std::fprintf(stderr, "rep %d: seq %.0f/s, parallel %.0f/s, %d jobs done in %.2f s\n", r + 1,
                 seq.back(), par.back(), a.jobs, done.back());
  }
  if (a.prefill > 0) {
    auto med = [&](double PrefillResult::*f) {
      std::vector<double> v;
      for (const auto& p : pre) v.push_back(p.*f);
      return Median(v);
    };
    int n = a.jobs * 5;
    std::printf("| what | empty queue | %d pending | ratio |\n|---|---|---|---|\n", a.prefill);
    std::printf(
        "| parallel client, %d threads, %d held jobs | %.0f jobs/s | %.0f jobs/s | %.2f |\n",
        a.threads, n, med(&PrefillResult::held_empty), med(&PrefillResult::held_full),
        med(&PrefillResult::held_full) / med(&PrefillResult::held_empty));
    std::printf(
        "| parallel client, %d threads, %d eligible (waiting) jobs | %.0f jobs/s | %.0f jobs/s | "
        "%.2f |\n",
        a.threads, n, med(&PrefillResult::wait_empty), med(&PrefillResult::wait_full),
        med(&PrefillResult::wait_full) / med(&PrefillResult::wait_empty));
    std::printf("| submit-to-RUNNING of a backfilled 1-node job | %.1f ms | %.1f ms | %.2f |\n",
                med(&PrefillResult::probe_empty), med(&PrefillResult::probe_full),
                med(&PrefillResult::probe_full) / med(&PrefillResult::probe_empty));
    std::printf("| (filling the queue: eligible submissions while it grows) | | %.0f jobs/s | |\n",
                med(&PrefillResult::prefill_rate));
    return 0;
  }
  std::printf("| sequential sbatch processes | %.0f jobs/s |\n", Median(seq));
  std::printf("| parallel client, %d threads (%d held jobs) | %.0f jobs/s |\n", a.threads,
              a.jobs * 5, Median(par));
  std::printf(
      "| %d trivial jobs submitted and run to completion (4 nodes) | %.2f s (%.0f jobs/s) |\n",
      a.jobs, Median(done), a.jobs / Median(done));
  return 0;
}
