#include "ctld/services/node_service.h"

#include "ctld/services/grpc_status.h"
#include "ctld/services/launch_step_call.h"
#include "ctld/services/owner_call.h"
#include "rpc/protocol.h"
#include "rpc/request_limits.h"

namespace sluice::ctld {

template <typename M>
Status NodeService::Check(const char* method, const M& req) {
  auto sender = verifier_.Verify(method, req);
  if (!sender.ok())
    return Unauthenticated("Invalid node authentication: " + sender.status().message());
  if (*sender != req.node())
    return PermissionDenied("Node authentication does not match node name");
  return CheckPeerProtocol(PeerProtocol(req.auth().protocol()), "node " + req.node(), "controller");
}

grpc::Status NodeService::RegisterNode(grpc::ServerContext* ctx, const RegisterNodeRequest* req,
                                       RegisterNodeReply* reply) {
  Status st = Check("RegisterNode", *req);
  if (!st.ok()) return ToGrpc(st);
  auto r = loop_->Call<RegisterNodeReply>([&](Controller* c) { return c->RegisterNode(*req); });
  if (!r.ok()) return ToGrpc(r.status());
  *reply = std::move(r).value();
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* NodeService::Heartbeat(grpc::CallbackServerContext* ctx,
                                                 const HeartbeatRequest* req,
                                                 HeartbeatReply* reply) {
  return RunOnOwner(
      ctx, loop_, Check("Heartbeat", *req), reply,
      [req](Controller* c) -> Expected<HeartbeatReply> { return c->Heartbeat(*req); });
}

grpc::ServerUnaryReactor* NodeService::JobEnded(grpc::CallbackServerContext* ctx,
                                                const JobEndedRequest* req, JobEndedReply* reply) {
  return RunOnOwner(ctx, loop_, Check("JobEnded", *req), reply, [req](Controller* c) {
    return EmptyReplyOr<JobEndedReply>(c->JobEnded(*req));
  });
}

grpc::ServerUnaryReactor* NodeService::Relay(grpc::CallbackServerContext* ctx,
                                             const RelayRequest* req, RelayReply* reply) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  Status st = Check("Relay", *req);
  if (st.ok() && req->has_launch_step()) st = CheckRequestLimits(req->launch_step());
  if (st.ok() && req->has_keepalive()) st = CheckRequestLimits(req->keepalive());
  if (st.ok() && !req->has_launch_step() && !req->has_keepalive()) {
    st = InvalidArgument("Relayed call is empty");
  }
  if (!st.ok()) {
    reactor->Finish(ToGrpc(st));
    return reactor;
  }
  Caller caller{req->uid(), req->gid()};
  if (req->has_launch_step()) {
    LaunchStepAsync(loop_, caller, &req->launch_step(), req->node(),
                    [reactor, reply](Expected<StepReply> r) {
                      if (r.ok()) *reply->mutable_step() = std::move(r).value();
                      reactor->Finish(r.ok() ? grpc::Status::OK : ToGrpc(r.status()));
                    });
    return reactor;
  }
  loop_->CallAsync<bool>(
      [caller, req](Controller* c) -> Expected<bool> {
        RETURN_IF_ERROR(c->CheckRelay(req->node(), req->keepalive().job_id()));
        RETURN_IF_ERROR(c->Keepalive(caller, req->keepalive()));
        return true;
      },
      [reactor](Expected<bool> r) {
        reactor->Finish(r.ok() ? grpc::Status::OK : ToGrpc(r.status()));
      });
  return reactor;
}

}  // namespace sluice::ctld
