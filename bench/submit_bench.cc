// End-to-end throughput on a local cluster (controller + 4 agents on loopback):
//   1. sequential `sbatch` processes (what a user loop does),
//   2. a parallel client (T threads submitting over gRPC),
//   3. time to run N trivial jobs to completion.
// Usage: bench_submit [--jobs 1000] [--seq 200] [--threads 8] [--reps 3]
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
    stub_ = ClientApi::NewStub(grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args));
    token_ = FetchCredentialToken(sock).value();
  }
  bool Submit(const JobSpec& spec) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(kCredMetadataKey, token_);
    SubmitRequest req;
    *req.mutable_spec() = spec;
    SubmitReply rep;
    return stub_->SubmitJob(&ctx, req, &rep).ok();
  }
  int Unfinished() {
    grpc::ClientContext ctx;
    ctx.AddMetadata(kCredMetadataKey, token_);
    GetJobsReply rep;
    if (!stub_->GetJobs(&ctx, GetJobsRequest(), &rep).ok()) return -1;
    int n = 0;
    for (const auto& j : rep.jobs()) n += j.spec().name() == "bench-run" && j.state() <= JOB_COMPLETING;
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

double ParallelSubmit(LocalCluster& c, int n, int threads, const std::string& dir, bool hold,
                      const std::string& name = "bench") {
  std::string addr = c.CtldAddress();
  std::string sock = c.state_dir() + "/state/ident.sock";
  std::atomic<int> next{0}, failed{0};
  JobSpec spec = TrivialJob(dir);
  spec.set_hold(hold);
  spec.set_name(name);
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
    if (!std::strcmp(argv[i], "--jobs")) a.jobs = v;
    else if (!std::strcmp(argv[i], "--seq")) a.seq = v;
    else if (!std::strcmp(argv[i], "--threads")) a.threads = v;
    else if (!std::strcmp(argv[i], "--reps")) a.reps = v;
  }
  std::vector<double> seq, par, done;
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
    seq.push_back(SequentialSbatch(c, a.seq, dir));
    par.push_back(ParallelSubmit(c, a.jobs * 5, a.threads, dir, true));
    done.push_back(RunToCompletion(c, a.jobs, a.threads, dir));
    c.Down();
    fs::remove_all(dir);
    std::fprintf(stderr, "rep %d: seq %.0f/s, parallel %.0f/s, %d jobs done in %.2f s\n", r + 1,
                 seq.back(), par.back(), a.jobs, done.back());
  }
  std::printf("| sequential sbatch processes | %.0f jobs/s |\n", Median(seq));
  std::printf("| parallel client, %d threads (%d held jobs) | %.0f jobs/s |\n", a.threads, a.jobs * 5, Median(par));
  std::printf("| %d trivial jobs submitted and run to completion (4 nodes) | %.2f s (%.0f jobs/s) |\n",
              a.jobs, Median(done), a.jobs / Median(done));
  return 0;
}
