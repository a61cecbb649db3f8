// The callback-API calls that run one operation on the owner thread (SubmitJob, Keepalive,
// Heartbeat, JobEnded): RunOnOwner finishes the call with the check's error at once, or
// runs `op` on the owner thread and finishes the call once its effects are durable
// (OwnerLoop::CallAsync), without a gRPC thread waiting in between.
#pragma once

#include <grpcpp/grpcpp.h>

#include <utility>

#include "common/status.h"
#include "ctld/runtime/owner_loop.h"
#include "ctld/services/grpc_status.h"

namespace sluice::ctld {

// Finishes a callback-API call with `r`: its value in `reply`, or its error.
template <typename R>
void FinishWith(grpc::ServerUnaryReactor* reactor, R* reply, Expected<R> r) {
  if (r.ok()) *reply = std::move(r).value();
  reactor->Finish(r.ok() ? grpc::Status::OK : ToGrpc(r.status()));
}

// `op`: Controller* -> Expected<R>, run only when `checked` is ok.
template <typename R, typename Op>
grpc::ServerUnaryReactor* RunOnOwner(grpc::CallbackServerContext* ctx, OwnerLoop* loop,
                                     const Status& checked, R* reply, Op op) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  if (!checked.ok()) {
    reactor->Finish(ToGrpc(checked));
    return reactor;
  }
  loop->CallAsync<R>(std::move(op),
                     [reactor, reply](Expected<R> r) { FinishWith(reactor, reply, std::move(r)); });
  return reactor;
}

// An operation that answers with a Status only, as an Expected of the empty reply `R`.
template <typename R>
Expected<R> EmptyReplyOr(const Status& st) {
  if (!st.ok()) return st;
  return R();
}

}  // namespace sluice::ctld
