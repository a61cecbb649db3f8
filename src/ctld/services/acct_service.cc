// ClientService::AcctJobs (see client_service.h).
#include <set>

#include "acct/acct_merge.h"
#include "acct/job_records.h"
#include "ctld/core/controller.h"
#include "ctld/services/client_service.h"
#include "ctld/services/grpc_status.h"
#include "rpc/credential.h"
#include "rpc/request_limits.h"

namespace sluice::ctld {

grpc::Status ClientService::AcctJobs(grpc::ServerContext* ctx, const AcctJobsRequest* req,
                                     AcctJobsReply* reply) {
  auto caller = Authenticate(ctx);
  if (!caller.ok()) return ToGrpc(caller.status());
  if (std::string detail; !CheckRequestLimits(*req, &detail).ok()) {
    LogRefused(ctx, "AcctJobs", detail);
    return ToGrpc(InvalidArgument(kMsgTooLong));
  }
  if (!acct_) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "Slurm accounting storage is disabled");
  }
  acct::AcctWindow window;
  window.job_ids.insert(req->job_ids().begin(), req->job_ids().end());
  window.start = req->start();
  window.end = req->end();
  window.uids.insert(req->uids().begin(), req->uids().end());
  window.accounts.insert(req->accounts().begin(), req->accounts().end());
  window.states.insert(req->states().begin(), req->states().end());
  // History first, then the live view: a job that ends in between shows its end.
  auto stored = acct_->Query(window);
  if (!stored.ok()) return ToGrpc(stored.status());
  bool hide_others = false;  // PrivateData=jobs for a non-admin caller
  Expected<AcctJobsReply> live =
      loop_->Call<AcctJobsReply>(std::function<Expected<AcctJobsReply>(Controller*)>(
          [&](Controller* c) -> Expected<AcctJobsReply> {
            hide_others = c->access().HidesOthersJobs(*caller);
            return c->AcctLive(*req);
          }));
  if (!live.ok()) return ToGrpc(live.status());
  acct::AcctData l;
  for (const auto& j : live->jobs()) l.jobs.push_back(acct::FromProto(j));
  for (const auto& s : live->steps()) l.steps.push_back(acct::FromProto(s));
  acct::AcctData merged = acct::MergeLive(std::move(stored).value(), l);
  std::set<int64_t> shown;
  for (const auto& j : merged.jobs) {
    if (hide_others && j.uid != caller->uid) continue;
    shown.insert(j.job_id);
    *reply->add_jobs() = acct::ToProto(j);
  }
  for (const auto& s : merged.steps) {
    if (shown.count(s.job_id)) *reply->add_steps() = acct::ToProto(s);
  }
  if (req->node_events()) {  // sreport cluster utilization: cluster-wide, not per user
    auto events = acct_->QueryNodeEvents(req->start(), req->end());
    if (!events.ok()) return ToGrpc(events.status());
    for (const auto& e : *events) {
      NodeEventRecord* p = reply->add_node_events();
      p->set_node(e.node);
      p->set_start_time(e.start_time);
      p->set_end_time(e.end_time);
      p->set_state(e.state);
      p->set_reason(e.reason);
      p->set_cpus(e.cpus);
      p->set_gpus(e.gpus);
    }
  }
  return grpc::Status::OK;
}

}  // namespace sluice::ctld
