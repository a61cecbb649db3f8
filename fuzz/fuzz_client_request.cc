// Every client RPC's request as the controller receives it: bytes off the wire parsed as
// the request type the first byte picks, bounded by CheckRequestLimits (as every
// ClientService handler does first), then given to the pure code that handles it:
// submit validation and array/dependency parsing, step layout on a running job,
// reservation words, sacctmgr on an association database (as an Administrator), and
// the list and id fields of the query/cancel/update calls. Nothing may crash, and no
// request may cost more than -rss_limit_mb.
#include <cstdint>
#include <memory>

#include "client.pb.h"
#include "common/array_spec.h"
#include "common/config.h"
#include "common/dependency_spec.h"
#include "common/hostlist.h"
#include "ctld/components/assoc_db.h"
#include "ctld/components/reservation_spec.h"
#include "ctld/components/step_layout.h"
#include "ctld/components/validate.h"
#include "rpc/request_limits.h"

namespace {

using namespace sluice;

const Config& FuzzConfig() {
  static const Config config = [] {
    auto c = ParseConfig(
        "ClusterName=fuzz\nMaxArraySize=2001\n"
        "NodeName=gpu[01-04] CPUs=16 RealMemory=64000 Gres=gpu:a100:8\n"
        "NodeName=cpu[01-02] CPUs=8 RealMemory=16000\n"
        "PartitionName=gpu Nodes=gpu[01-04] Default=YES MaxTime=1-00:00:00\n"
        "PartitionName=cpu Nodes=cpu[01-02]\n",
        "fuzz.conf");
    return *c;
  }();
  return config;
}

JobInfo RunningJob() {
  JobInfo job;
  job.set_job_id(7);
  for (const char* n : {"gpu01", "gpu02", "gpu03"}) {
    NodeAlloc* a = job.add_alloc();
    a->set_node(n);
    for (int c = 0; c < 16; ++c) a->add_cpu_ids(c);
    for (int g = 0; g < 8; ++g) a->add_gpu_ids(g);
    a->set_ntasks(2);
  }
  return job;
}

void Submit(const SubmitRequest& req) {
  JobInfo job;
  *job.mutable_spec() = req.spec();
  job.set_job_id(1);
  if (!ctld::NormalizeJob(FuzzConfig(), &job).ok()) return;
  (void)ctld::BuildRequest(FuzzConfig(), job);
  if (!job.spec().array_spec().empty()) {
    (void)ParseArraySpec(job.spec().array_spec(), FuzzConfig().max_array_size);
  }
  if (!job.spec().dependency().empty()) (void)ParseDependency(job.spec().dependency());
}

void Sacctmgr(const SacctmgrRequest& req) {
  static ctld::AssocDb base = [] {
    ctld::AssocDb db;
    db.Seed(FuzzConfig());
    return db;
  }();
  ctld::AssocDb db = base;  // each input starts from the same database
  ctld::AssocWrites writes;
  (void)db.Execute(req, ctld::AdminLevel::kAdministrator, &writes);
}

template <typename M>
bool Parse(const uint8_t* data, size_t size, M* m) {
  return m->ParseFromArray(data, static_cast<int>(size)) && CheckRequestLimits(*m).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t* body = data + 1;
  const size_t n = size - 1;
  switch (data[0] % 12) {
    case 0:
      if (SubmitRequest r; Parse(body, n, &r)) Submit(r);
      break;
    case 1:
      if (StepRequest r; Parse(body, n, &r)) (void)ctld::PlanStepLayout(RunningJob(), r);
      break;
    case 2:
      if (ReservationRequest r; Parse(body, n, &r)) {
        (void)ctld::ParseReservationArgs({r.args().begin(), r.args().end()}, 1700000000);
      }
      break;
    case 3:
      if (SacctmgrRequest r; Parse(body, n, &r)) Sacctmgr(r);
      break;
    case 4:
      if (UpdateNodeRequest r; Parse(body, n, &r)) {
        for (const auto& name : r.names()) (void)ExpandHostlist(name, FuzzConfig().nodes.size());
      }
      break;
    case 5:
      if (GetNodesRequest r; Parse(body, n, &r)) {
      }
      break;
    case 6:
      if (CancelRequest r; Parse(body, n, &r)) {
      }
      break;
    case 7:
      if (UpdateJobRequest r; Parse(body, n, &r)) {
      }
      break;
    case 8:
      if (KeepaliveRequest r; Parse(body, n, &r)) {
      }
      break;
    case 9:
      if (GetJobsRequest r; Parse(body, n, &r)) {
      }
      break;
    case 10:
      if (AcctJobsRequest r; Parse(body, n, &r)) {
      }
      break;
    case 11:
      if (ReleaseAllocationRequest r; Parse(body, n, &r)) {
      }
      break;
  }
  return 0;
}
