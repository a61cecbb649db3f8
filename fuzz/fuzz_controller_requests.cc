// The controller's request handlers end to end: a real Controller (ctld/core/controller.h)
// on an in-memory SQLite state store, a real scheduler and a recording agent link, fed a
// sequence of requests as its gRPC services hand them over: every client RPC (submit,
// queries, cancel, updates, steps, allocations, keepalives, reservations, sacctmgr,
// accounting's live view) and every agent RPC (registration, heartbeat, job end), each
// bounded by CheckRequestLimits first as the services do, from a caller the input picks
// (root, or one of two users). Between requests the controller commits, runs a
// scheduling pass and hears back from the agents as the input says (launch ok, refused,
// unknown). Nothing may crash, and no input may cost more than -rss_limit_mb.
//
// Input: records (fuzz_records.h) whose flags byte picks the caller.
#include <cstdint>
#include <memory>

#include "client.pb.h"
#include "common/clock.h"
#include "common/config.h"
#include "ctld/components/scheduler_config.h"
#include "ctld/core/controller.h"
#include "ctld/testing/test_fakes.h"
#include "fuzz_records.h"
#include "node.pb.h"
#include "rpc/request_limits.h"
#include "sched/scheduler.h"
#include "storage/sqlite_state_store.h"

namespace {

using namespace sluice;
using namespace sluice::ctld;

const Config& FuzzConfig() {
  static const Config config = [] {
    auto c = ParseConfig(
        "ClusterName=fuzz\nMaxArraySize=64\nPrivateData=jobs\n"
        "PriorityType=priority/multifactor\nPreemptType=preempt/qos\n"
        "NodeName=gpu[01-03] CPUs=16 RealMemory=64000 Gres=gpu:a100:8\n"
        "NodeName=cpu01 CPUs=8 RealMemory=16000\n"
        "PartitionName=gpu Nodes=gpu[01-03] Default=YES MaxTime=1-00:00:00\n"
        "PartitionName=cpu Nodes=cpu01\n",
        "fuzz.conf");
    if (!c.ok()) __builtin_trap();
    return *c;
  }();
  return config;
}

struct Record {
  uint8_t kind;
  Caller caller;
  const uint8_t* data;
  size_t size;
};

template <typename M>
bool Parse(const Record& r, M* m) {
  return m->ParseFromArray(r.data, static_cast<int>(r.size)) && CheckRequestLimits(*m).ok();
}

class Cluster {
 public:
  Cluster()
      : store_(std::move(storage::SqliteStateStore::Open(":memory:")).value()),
        scheduler_(sched::MakeScheduler(*SchedulerConfigFrom(FuzzConfig()))),
        ctl_(FuzzConfig(), &clock_, store_.get(), &link_,
             SchedDeps{scheduler_.get(),
                       [](const sched::ClusterSnapshot& s, const sched::JobRequest& j) {
                         return sched::CheckFeasible(s, j);
                       }},
             Options()) {
    if (!ctl_.Load(false).ok()) __builtin_trap();
    for (const NodeConfig& n : FuzzConfig().nodes) {
      RegisterNodeRequest r;
      r.set_node(n.name);
      r.set_cpus(n.cpus);
      r.set_real_memory_mb(n.real_memory_mb);
      for (int g = 0; g < 8 && n.name.starts_with("gpu"); ++g) r.add_gpus()->set_index(g);
      (void)ctl_.RegisterNode(r);
    }
    (void)ctl_.Commit();
  }

  void Handle(const Record& r) {
    const Caller& c = r.caller;
    switch (r.kind % 24) {
      case 0:
        if (SubmitRequest q; Parse(r, &q)) (void)ctl_.Submit(c, q);
        break;
      case 1:
        if (GetJobsRequest q; Parse(r, &q)) {
          auto rep = ctl_.GetJobs(q);
          if (rep.ok()) (void)ctl_.access().HidePrivate(c, !q.job_ids().empty(), &*rep);
        }
        break;
      case 2:
        if (CancelRequest q; Parse(r, &q)) (void)ctl_.Cancel(c, q);
        break;
      case 3:
        if (GetNodesRequest q; Parse(r, &q)) (void)ctl_.GetNodes(q);
        break;
      case 4:
        (void)ctl_.GetPartitions();
        (void)ctl_.GetConfig();
        break;
      case 5:
        if (UpdateNodeRequest q; Parse(r, &q)) (void)ctl_.UpdateNode(c, q);
        break;
      case 6:
        if (UpdateJobRequest q; Parse(r, &q)) (void)ctl_.UpdateJob(c, q);
        break;
      case 7:
        if (GetPrioritiesRequest q; Parse(r, &q)) {
          GetPrioritiesReply rep = ctl_.GetPriorities(q);
          ctl_.access().HidePrivate(c, &rep);
        }
        break;
      case 8:
        if (auto rep = ctl_.GetShares(); rep.ok()) ctl_.access().HidePrivate(c, &*rep);
        break;
      case 9:
        if (StepRequest q; Parse(r, &q)) (void)ctl_.CreateStep(c, q);
        break;
      case 10:
        if (ReleaseAllocationRequest q; Parse(r, &q)) (void)ctl_.ReleaseAllocation(c, q);
        break;
      case 11:
        if (KeepaliveRequest q; Parse(r, &q)) (void)ctl_.Keepalive(c, q);
        break;
      case 12:
        if (GetStepsRequest q; Parse(r, &q)) {
          GetStepsReply rep = ctl_.GetSteps(q);
          ctl_.access().HidePrivate(c, &rep);
        }
        break;
      case 13:
        if (ReservationRequest q; Parse(r, &q)) {
          auto rep = ctl_.Reservation(c, q);
          if (rep.ok()) ctl_.access().HidePrivate(c, &*rep);
        }
        break;
      case 14:
        if (SacctmgrRequest q; Parse(r, &q)) (void)ctl_.Sacctmgr(c, q);
        break;
      case 15:
        if (AcctJobsRequest q; Parse(r, &q)) (void)ctl_.AcctLive(q);
        break;
      // The agents' side (the node name is the authenticated sender in production).
      case 16:
        if (RegisterNodeRequest q; Parse(r, &q)) (void)ctl_.RegisterNode(q);
        break;
      case 17:
        if (HeartbeatRequest q; Parse(r, &q)) (void)ctl_.Heartbeat(q);
        break;
      case 18:
        if (JobEndedRequest q; Parse(r, &q)) (void)ctl_.JobEnded(q);
        break;
      // Time passes; the agents answer the launches sent so far.
      case 19:
        clock_.Advance(1 + r.size * 7);
        ctl_.Tick();
        break;
      case 20:
        AnswerLaunches(Status::Ok());
        break;
      case 21:
        AnswerLaunches(FailedPrecondition("refused by the agent"));
        break;
      case 22:
        AnswerLaunches(Status(Code::kUnknown, "Socket closed"));
        break;
      case 23:
        (void)ctl_.SchedulePass();
        break;
    }
    (void)ctl_.Commit();
  }

 private:
  static ControllerOptions Options() {
    ControllerOptions o;
    o.user_name = [](uint32_t uid) {
      return uid == 0 ? std::string("root") : "u" + std::to_string(uid);
    };
    o.group_name = [](uint32_t gid) { return "g" + std::to_string(gid); };
    return o;
  }
  void AnswerLaunches(const Status& result) {
    auto launches = std::move(link_.launches);
    link_.launches.clear();
    for (auto& l : launches) {
      if (l.done) l.done(result);
    }
  }

  ManualClock clock_{1'700'000'000};
  std::unique_ptr<storage::StateStore> store_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  testing::FakeAgentLink link_;
  Controller ctl_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Cluster cluster;  // each input starts from the same empty cluster
  static const Caller kCallers[] = {{0, 0}, {1000, 1000}, {1001, 1001}};
  ForEachRecord(data, size, 32, [&](uint8_t kind, uint8_t caller, const uint8_t* bytes, size_t n) {
    cluster.Handle({kind, kCallers[caller % 3], bytes, n});
  });
  return 0;
}
