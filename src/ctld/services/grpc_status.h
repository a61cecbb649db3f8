// Maps sluice Status codes to gRPC status codes; the message (Slurm's wording) is kept.
// FinishWith: the same for a callback-API call's reactor.
#pragma once

#include <grpcpp/grpcpp.h>

#include <utility>

#include "common/status.h"

namespace sluice::ctld {

grpc::Status ToGrpc(const Status& st);

// Finishes a callback-API call with `r`: its value in `reply`, or its error.
template <typename R>
void FinishWith(grpc::ServerUnaryReactor* reactor, R* reply, Expected<R> r) {
  if (r.ok()) *reply = std::move(r).value();
  reactor->Finish(r.ok() ? grpc::Status::OK : ToGrpc(r.status()));
}

}  // namespace sluice::ctld
