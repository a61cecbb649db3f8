// Job query benchmarks (Google Benchmark): Controller::GetJobs in-process, then the reply
// serialized as the RPC would send it, with 100,000 pending jobs (1,000 users x 100 jobs,
// each with a ~1.4 KB environment and a small batch script) on 4 nodes, no running job.
// Rows: every job (whole, and only the fields squeue's default format asks for),
// `squeue -j ID`, `squeue -u USER`, `squeue -t R`, a /metrics scrape, the dashboard's
// state, and the old reply (every job whole, script and environment included) that every squeue got
// before the controller did the filtering. The controller keeps its state in a
// SqliteStateStore in a temporary directory, as the daemon does (scripts and environments
// live there, not in the job records); `ctld_KB_per_job` is the growth of the process's
// resident memory per pending job while the queue was submitted and committed (job
// records, the scheduler's requests, indexes, and SQLite's page cache, which is bounded).
// Results and the command to reproduce: bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "cli/squeue_format.h"
#include "common/clock.h"
#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "sched/scheduler.h"
#include "storage/sqlite_state_store.h"

namespace sluice::ctld {
namespace {

constexpr int kJobs = 100'000;
constexpr int kUsers = 1'000;
constexpr uint32_t kFirstUid = 2'000;

Config Cluster() {
  Config c;
  c.path = "/etc/sluice/sluice.conf";
  PartitionConfig p;
  p.name = "batch";
  p.is_default = true;
  for (int i = 1; i <= 4; ++i) {
    NodeConfig n;
    n.name = "node0" + std::to_string(i);
    n.cpus = 64;
    n.real_memory_mb = 256'000;
    c.nodes.push_back(n);
    p.nodes.push_back(n.name);
  }
  c.partitions.push_back(p);
  return c;
}

// 30 variables of ~48 bytes: ~1.4 KB, as a login shell's exported environment.
std::vector<std::string> Environment(int job) {
  std::vector<std::string> env;
  for (int i = 0; i < 30; ++i) {
    env.push_back("VAR_" + std::to_string(i) + "=" + std::string(40, 'a' + (job + i) % 26));
  }
  return env;
}

// Resident set size of this process, in KB (VmRSS of /proc/self/status).
int64_t RssKb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  int64_t kb = 0;
  while (in >> key) {
    if (key == "VmRSS:" && in >> kb) return kb;
    in.ignore(1 << 12, '\n');
  }
  return 0;
}

struct Queue {
  ManualClock clock{1'700'000'000};
  testing::FakeAgentLink link;
  std::string dir;
  std::unique_ptr<storage::StateStore> store;
  std::unique_ptr<Controller> ctl;
  double kb_per_job = 0;

  Queue() {
    char tmpl[] = "/tmp/sluice-bench-query-XXXXXX";
    dir = mkdtemp(tmpl);
    store = std::move(storage::SqliteStateStore::Open(dir + "/state.db")).value();
    const int64_t rss_before = RssKb();
    ControllerOptions o;
    o.user_name = [](uint32_t uid) { return "u" + std::to_string(uid); };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    SchedDeps deps{nullptr, [](const sched::ClusterSnapshot& s, const sched::JobRequest& j) {
                     return sched::CheckFeasible(s, j);
                   }};
    ctl = std::make_unique<Controller>(Cluster(), &clock, store.get(), &link, deps, o);
    for (const NodeConfig& n : Cluster().nodes) {
      RegisterNodeRequest r;
      r.set_node(n.name);
      r.set_cpus(n.cpus);
      r.set_real_memory_mb(n.real_memory_mb);
      (void)ctl->RegisterNode(r);
    }
    for (int i = 0; i < kJobs; ++i) {
      SubmitRequest r;
      JobSpec* spec = r.mutable_spec();
      spec->set_script("#!/bin/bash\n#SBATCH -n 1\nsrun python train.py --epochs 10\n");
      spec->set_work_dir("/home/u/run");
      spec->set_name("job" + std::to_string(i % 50));
      for (std::string& v : Environment(i)) spec->add_env(std::move(v));
      uint32_t uid = kFirstUid + i % kUsers;
      if (!ctl->Submit({uid, uid}, r).ok()) std::abort();
      if (i % 1000 == 999 && !ctl->Commit().ok()) std::abort();  // as the daemon's drains
    }
    if (!ctl->Commit().ok()) std::abort();
    kb_per_job = static_cast<double>(RssKb() - rss_before) / kJobs;
  }
  ~Queue() { std::filesystem::remove_all(dir); }
};

Queue& TheQueue() {
  static Queue q;
  return q;
}

void Query(benchmark::State& state, const GetJobsRequest& req) {
  Queue& q = TheQueue();
  size_t jobs = 0, bytes = 0;
  for (auto _ : state) {
    Expected<GetJobsReply> r = q.ctl->GetJobs(req);
    std::string wire;
    r->SerializeToString(&wire);
    jobs = r->jobs_size();
    bytes = wire.size();
    benchmark::DoNotOptimize(wire.data());
  }
  state.counters["jobs"] = static_cast<double>(jobs);
  state.counters["reply_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["ctld_KB_per_job"] = q.kb_per_job;
}

void BM_AllJobsWithScriptEnv(benchmark::State& state) {  // the old reply to every query
  GetJobsRequest req;
  req.set_with_script_env(true);
  Query(state, req);
}

void BM_AllJobs(benchmark::State& state) { Query(state, GetJobsRequest()); }

// What squeue's default format asks for (GetJobsRequest.fields).
void BM_AllJobsSqueueFields(benchmark::State& state) {
  GetJobsRequest req;
  std::vector<FormatField> fields = *ParsePercentFormat(kSqueueDefaultFormat);
  if (!ValidateSqueueFields(&fields).ok()) std::abort();
  for (const std::string& p : SqueueFieldPaths(fields)) req.mutable_fields()->add_paths(p);
  Query(state, req);
}

void BM_OneJobId(benchmark::State& state) {
  GetJobsRequest req;
  req.add_job_ids(kJobs / 2);
  Query(state, req);
}

void BM_OneUser(benchmark::State& state) {
  GetJobsRequest req;
  req.add_users("u" + std::to_string(kFirstUid + 7));
  Query(state, req);
}

void BM_StatesRunning(benchmark::State& state) {
  GetJobsRequest req;
  req.add_states(JOB_RUNNING);
  Query(state, req);
}

// One Prometheus scrape of /metrics (every area; 1,000 users' series), rendered as the
// owner thread does it.
void BM_MetricsScrape(benchmark::State& state) {
  Queue& q = TheQueue();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = q.ctl->Metrics({0, 0}, MetricsArea::kAll, {});
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["text_KB"] = static_cast<double>(bytes) / 1e3;
}

// The dashboard's state (GET /dashboard/state) as root sees it: every node and GPU, the
// first 100 pending jobs explained, with 100,000 pending on the 4-node cluster.
void BM_DashboardState(benchmark::State& state) {
  Queue& q = TheQueue();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = q.ctl->Dashboard({0, 0});
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["json_KB"] = static_cast<double>(bytes) / 1e3;
}

BENCHMARK(BM_AllJobsWithScriptEnv)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllJobs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllJobsSqueueFields)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OneJobId)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneUser)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StatesRunning)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MetricsScrape)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DashboardState)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice::ctld

BENCHMARK_MAIN();
