// The accounting queries, end to end: sacct's and sreport's command lines (options,
// time specifications, state and job lists, format strings) as a user types them, the
// AcctJobsRequest they build answered as the controller answers it (CheckRequestLimits,
// then the real SQLite accounting store, then MergeLive with live jobs), and that
// answer filtered and printed by the command; or a raw AcctJobsRequest off the wire
// straight into the store. Nothing may crash, and no input may cost more than
// -rss_limit_mb.
//
// Input: [kind] then, for the commands, their arguments separated by NUL bytes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acct/acct_merge.h"
#include "acct/acct_store.h"
#include "acct/job_records.h"
#include "cli/cli_test_util.h"
#include "cli/sacct.h"
#include "cli/sreport.h"
#include "rpc/request_limits.h"

namespace {

using namespace sluice;

acct::AcctJobRecord Job(int64_t id, int32_t attempt, int32_t state, uint32_t uid) {
  acct::AcctJobRecord j;
  j.job_id = id;
  j.attempt = attempt;
  j.name = "train" + std::to_string(id % 3);
  j.uid = uid;
  j.user = uid == 0 ? "root" : std::to_string(uid);
  j.account = uid == 0 ? "root" : "ml";
  j.partition = id % 2 ? "gpu" : "cpu";
  j.qos = "normal";
  j.state = state;
  j.submit_time = kRefDay + id * 60;
  j.start_time = j.submit_time + 5;
  j.end_time = state == JOB_RUNNING ? 0 : j.start_time + 600;
  j.time_limit_min = id % 4 ? 60 : -1;
  j.nodes = "gpu[01-02]";
  j.nnodes = 2;
  j.alloc_cpus = j.req_cpus = 32;
  j.alloc_gpus = 16;
  j.req_tres = j.alloc_tres = "billing=32,cpu=32,gres/gpu=16,mem=64000M,node=2";
  return j;
}

// A store with finished, requeued and running jobs, their steps and a node event.
acct::AcctStore& Store() {
  static std::unique_ptr<acct::AcctStore> store = [] {
    auto s = acct::OpenSqliteAcctStore(":memory:");
    if (!s.ok()) __builtin_trap();
    std::vector<acct::AcctOp> ops;
    int32_t states[] = {JOB_COMPLETED, JOB_FAILED, JOB_CANCELLED, JOB_TIMEOUT, JOB_RUNNING};
    for (int64_t id = 1; id <= 20; ++id) {
      ops.push_back(Job(id, 0, states[id % 5], id % 3 ? 1000 : 0));
      if (id % 7 == 0) ops.push_back(Job(id, 1, JOB_COMPLETED, 1000));
      for (int32_t step : {acct::kBatchStep, acct::kExternStep, 0}) {
        acct::AcctStepRecord st;
        st.job_id = id;
        st.step_id = step;
        st.name = step == 0 ? "python" : "batch";
        st.nodes = "gpu01";
        st.ntasks = 8;
        st.alloc_cpus = 16;
        st.state = JOB_COMPLETED;
        st.start_time = kRefDay + id * 60 + 5;
        st.end_time = st.start_time + 300;
        ops.push_back(st);
      }
    }
    ops.push_back(acct::NodeEventSet{"gpu02", kRefDay + 100, "DOWN", "Not responding", 64, 8});
    if (!(*s)->Apply(ops).ok()) __builtin_trap();
    return std::move(s).value();
  }();
  return *store;
}

// What ClientService::AcctJobs answers: bounded, the store's history, the live view over it.
Expected<AcctJobsReply> Answer(const AcctJobsRequest& req) {
  RETURN_IF_ERROR(CheckRequestLimits(req));
  acct::AcctWindow window;
  window.job_ids.insert(req.job_ids().begin(), req.job_ids().end());
  window.start = req.start();
  window.end = req.end();
  ASSIGN_OR_RETURN(acct::AcctData stored, Store().Query(window));
  acct::AcctData live;
  live.jobs.push_back(Job(21, 0, JOB_RUNNING, 1000));
  AcctJobsReply reply;
  for (const auto& j : acct::MergeLive(std::move(stored), live).jobs)
    *reply.add_jobs() = acct::ToProto(j);
  if (req.node_events()) RETURN_IF_ERROR(Store().QueryNodeEvents(req.start(), req.end()).status());
  return reply;
}

class StoreApi : public FakeApi {
 public:
  Expected<AcctJobsReply> AcctJobs(const AcctJobsRequest& req) override { return Answer(req); }
};

std::vector<std::string> Args(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size && args.size() <= 64; ++i) {
    if (data[i] == 0)
      args.emplace_back();
    else
      args.back().push_back(static_cast<char>(data[i]));
  }
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t* body = data + 1;
  const size_t n = size - 1;
  switch (data[0] % 3) {
    case 0:
    case 1: {
      TestCli cli;
      StoreApi api;
      cli.env.connect = [&api]() -> Expected<ClientApiInterface*> { return &api; };
      cli.env.uid = data[0] & 4 ? 1000 : 0;
      cli.clock.Set(Ref(12, 0, 0));
      auto args = Args(body, n);
      (void)(data[0] % 3 == 0 ? RunSacct(args, cli.env) : RunSreport(args, cli.env));
      break;
    }
    case 2:
      if (AcctJobsRequest req; req.ParseFromArray(body, static_cast<int>(n))) (void)Answer(req);
      break;
  }
  return 0;
}
