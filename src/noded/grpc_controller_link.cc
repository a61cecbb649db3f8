#include <grpcpp/grpcpp.h>

#include <chrono>

#include "noded/controller_link.h"
#include "rpc/connect_failure.h"
#include "rpc/grpc_limits.h"

namespace sluice {
namespace {

constexpr int kRelayTimeoutMs = 30'000;  // the clients' own RPC deadline

Status FromGrpc(const grpc::Status& st) {
  if (st.ok()) return Status::Ok();
  switch (st.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED:
      return Unauthenticated(st.error_message());
    case grpc::StatusCode::PERMISSION_DENIED:
      return PermissionDenied(st.error_message());
    case grpc::StatusCode::INVALID_ARGUMENT:
      return InvalidArgument(st.error_message());
    case grpc::StatusCode::NOT_FOUND:
      return NotFound(st.error_message());
    default:
      return Unavailable("controller: " + st.error_message());
  }
}

}  // namespace

bool ControllerNotListening(const Status& st) {
  if (st.ok() || st.code() != Code::kUnavailable) return false;
  return st.message().find("Connection refused") != std::string::npos ||
         st.message().find(kStandbyAnswer) != std::string::npos;
}

GrpcControllerLink::GrpcControllerLink(const std::vector<std::string>& targets,
                                       std::vector<std::string> names, NodeSigner signer,
                                       int timeout_ms)
    : names_(std::move(names)), signer_(std::move(signer)), timeout_ms_(timeout_ms) {
  for (const auto& t : targets) stubs_.push_back(NodeApi::NewStub(CreateLimitedChannel(t)));
}

void GrpcControllerLink::Prefer(const std::string& name) {
  for (size_t i = 0; i < names_.size() && i < stubs_.size(); ++i) {
    if (names_[i] == name) current_ = i;
  }
}

template <typename Fn>
grpc::Status GrpcControllerLink::EachController(int timeout_ms, bool past_timeouts, Fn fn) {
  return CallEachController(stubs_.size(), &current_, past_timeouts, [&](size_t at) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
    return fn(stubs_[at].get(), &ctx);
  });
}

template <typename Req, typename Reply, typename Fn>
Expected<Reply> GrpcControllerLink::Call(const char* method, Req* req, Fn fn) {
  signer_.Sign(method, req);
  Reply reply;
  Status st = FromGrpc(EachController(timeout_ms_, true, [&](NodeApi::Stub* stub, auto* ctx) {
    return fn(stub, ctx, *req, &reply);
  }));
  if (!st.ok()) return st;
  return reply;
}

Expected<RegisterNodeReply> GrpcControllerLink::Register(RegisterNodeRequest req) {
  return Call<RegisterNodeRequest, RegisterNodeReply>(
      "RegisterNode", &req,
      [](auto* stub, auto* c, const auto& r, auto* out) { return stub->RegisterNode(c, r, out); });
}

Expected<HeartbeatReply> GrpcControllerLink::Heartbeat(HeartbeatRequest req) {
  return Call<HeartbeatRequest, HeartbeatReply>(
      "Heartbeat", &req,
      [](auto* stub, auto* c, const auto& r, auto* out) { return stub->Heartbeat(c, r, out); });
}

Status GrpcControllerLink::JobEnded(JobEndedRequest req) {
  return Call<JobEndedRequest, JobEndedReply>("JobEnded", &req,
                                              [](auto* stub, auto* c, const auto& r, auto* out) {
                                                return stub->JobEnded(c, r, out);
                                              })
      .status();
}

RelayReply GrpcControllerLink::Relay(RelayRequest req) {
  signer_.Sign("Relay", &req);
  // A relayed LaunchStep answers once every step node started its tasks: the client's
  // own deadline, not the agent's.
  RelayReply reply;
  grpc::Status st = EachController(kRelayTimeoutMs, false, [&](NodeApi::Stub* stub, auto* ctx) {
    return stub->Relay(ctx, req, &reply);
  });
  if (!st.ok()) {
    reply.Clear();
    reply.set_code(st.error_code());
    reply.set_error(st.error_message());
  }
  return reply;
}

}  // namespace sluice
