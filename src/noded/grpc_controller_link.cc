#include <grpcpp/grpcpp.h>

#include <chrono>

#include "noded/controller_link.h"
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
  return !st.ok() && st.code() == Code::kUnavailable &&
         st.message().find("Connection refused") != std::string::npos;
}

GrpcControllerLink::GrpcControllerLink(const std::string& target, NodeSigner signer, int timeout_ms)
    : stub_(NodeApi::NewStub(CreateLimitedChannel(target))),
      signer_(std::move(signer)),
      timeout_ms_(timeout_ms) {}

template <typename Req, typename Reply, typename Fn>
Expected<Reply> GrpcControllerLink::Call(const char* method, Req* req, Fn fn) {
  signer_.Sign(method, req);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms_));
  Reply reply;
  Status st = FromGrpc(fn(&ctx, *req, &reply));
  if (!st.ok()) return st;
  return reply;
}

Expected<RegisterNodeReply> GrpcControllerLink::Register(RegisterNodeRequest req) {
  return Call<RegisterNodeRequest, RegisterNodeReply>(
      "RegisterNode", &req,
      [this](auto* c, const auto& r, auto* out) { return stub_->RegisterNode(c, r, out); });
}

Expected<HeartbeatReply> GrpcControllerLink::Heartbeat(HeartbeatRequest req) {
  return Call<HeartbeatRequest, HeartbeatReply>(
      "Heartbeat", &req,
      [this](auto* c, const auto& r, auto* out) { return stub_->Heartbeat(c, r, out); });
}

Status GrpcControllerLink::JobEnded(JobEndedRequest req) {
  return Call<JobEndedRequest, JobEndedReply>(
             "JobEnded", &req,
             [this](auto* c, const auto& r, auto* out) { return stub_->JobEnded(c, r, out); })
      .status();
}

RelayReply GrpcControllerLink::Relay(RelayRequest req) {
  signer_.Sign("Relay", &req);
  grpc::ClientContext ctx;
  // A relayed LaunchStep answers once every step node started its tasks: the client's
  // own deadline, not the agent's.
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(kRelayTimeoutMs));
  RelayReply reply;
  grpc::Status st = stub_->Relay(&ctx, req, &reply);
  if (!st.ok()) {
    reply.Clear();
    reply.set_code(st.error_code());
    reply.set_error(st.error_message());
  }
  return reply;
}

}  // namespace sluice
