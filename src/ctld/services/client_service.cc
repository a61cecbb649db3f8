#include "ctld/services/client_service.h"

#include "ctld/services/grpc_status.h"
#include "ctld/services/jwt.h"
#include "ctld/services/launch_step_call.h"
#include "ctld/services/owner_call.h"
#include "ctld/services/step_usage_call.h"
#include "rpc/credential.h"
#include "rpc/munge_auth.h"
#include "rpc/protocol.h"
#include "rpc/request_limits.h"

#include <future>

namespace sluice::ctld {

grpc::Status ToGrpc(const Status& st) {
  using grpc::StatusCode;
  StatusCode code = StatusCode::UNKNOWN;
  switch (st.code()) {
    case Code::kOk:
      return grpc::Status::OK;
    case Code::kInvalidArgument:
      code = StatusCode::INVALID_ARGUMENT;
      break;
    case Code::kNotFound:
      code = StatusCode::NOT_FOUND;
      break;
    case Code::kAlreadyExists:
      code = StatusCode::ALREADY_EXISTS;
      break;
    case Code::kPermissionDenied:
      code = StatusCode::PERMISSION_DENIED;
      break;
    case Code::kUnavailable:
      code = StatusCode::UNAVAILABLE;
      break;
    case Code::kFailedPrecondition:
      code = StatusCode::FAILED_PRECONDITION;
      break;
    case Code::kResourceExhausted:
      code = StatusCode::RESOURCE_EXHAUSTED;
      break;
    case Code::kInternal:
      code = StatusCode::INTERNAL;
      break;
    case Code::kUnauthenticated:
      code = StatusCode::UNAUTHENTICATED;
      break;
    case Code::kUnknown:
      code = StatusCode::UNKNOWN;
      break;
  }
  return grpc::Status(code, st.message());
}

namespace {

// Runs `fn` on the owner thread and copies its value into `reply`.
template <typename R, typename F>
grpc::Status Run(OwnerLoop* loop, F fn, R* reply) {
  Expected<R> r = loop->Call<R>(std::function<Expected<R>(Controller*)>(std::move(fn)));
  if (!r.ok()) return ToGrpc(r.status());
  *reply = std::move(r).value();
  return grpc::Status::OK;
}

}  // namespace

Expected<Caller> ClientService::Authenticate(grpc::ServerContextBase* ctx) const {
  const auto& md = ctx->client_metadata();
  auto v = md.find(kProtocolMetadataKey);
  RETURN_IF_ERROR(CheckPeerProtocol(
      PeerProtocol(v == md.end() ? std::string_view()
                                 : std::string_view(v->second.data(), v->second.size())),
      "this command", "controller"));
  auto it = md.find(kCredMetadataKey);
  if (it == md.end()) return Unauthenticated(kMsgBadCredential);
  std::string_view token(it->second.data(), it->second.size());
  std::string_view user;
  if (auto u = md.find(kUserMetadataKey); u != md.end())
    user = {u->second.data(), u->second.size()};
  Expected<Caller> caller = verifier_.Verify(token, user);
  if (caller.ok()) return caller;
  LogRefused(ctx, "authentication", caller.status().message());
  // A JWT's holder is told why (expired, wrong user); a bad Sluice credential is not.
  if (verifier_.jwt_enabled() && LooksLikeJwt(token)) return caller.status();
  return Unauthenticated(kMsgBadCredential);
}

// Oversize requests are refused before they reach the owner thread (request_limits.h).
#define LIMITS_OR_RETURN(req, what)                                  \
  if (std::string detail; !CheckRequestLimits(*req, &detail).ok()) { \
    LogRefused(ctx, what, detail);                                   \
    return ToGrpc(InvalidArgument(kMsgTooLong));                     \
  }

#define AUTH_OR_RETURN(caller)                                  \
  auto caller##_exp = Authenticate(ctx);                        \
  if (!caller##_exp.ok()) return ToGrpc(caller##_exp.status()); \
  Caller caller = *caller##_exp

template <typename Req>
Expected<Caller> ClientService::CheckCall(grpc::CallbackServerContext* ctx, const Req& req,
                                          const char* what) const {
  ASSIGN_OR_RETURN(Caller caller, Authenticate(ctx));
  if (std::string detail; !CheckRequestLimits(req, &detail).ok()) {
    LogRefused(ctx, what, detail);
    return InvalidArgument(kMsgTooLong);
  }
  return caller;
}

grpc::ServerUnaryReactor* ClientService::SubmitJob(grpc::CallbackServerContext* ctx,
                                                   const SubmitRequest* req, SubmitReply* reply) {
  Expected<Caller> caller = CheckCall(ctx, *req, "SubmitJob");
  return RunOnOwner(ctx, loop_, caller.status(), reply,
                    [caller, req](Controller* c) { return c->Submit(*caller, *req); });
}

grpc::Status ClientService::GetJobs(grpc::ServerContext* ctx, const GetJobsRequest* req,
                                    GetJobsReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetJobs");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<GetJobsReply> {
        ASSIGN_OR_RETURN(GetJobsReply r, c->GetJobs(*req, &caller));
        RETURN_IF_ERROR(c->access().HidePrivate(
            caller, !req->job_ids().empty() || !req->array_tasks().empty(), &r));
        return r;
      },
      reply);
}

grpc::Status ClientService::CancelJobs(grpc::ServerContext* ctx, const CancelRequest* req,
                                       CancelReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "CancelJobs");
  return Run(
      loop_, [&](Controller* c) -> Expected<CancelReply> { return c->Cancel(caller, *req); },
      reply);
}

grpc::Status ClientService::GetNodes(grpc::ServerContext* ctx, const GetNodesRequest* req,
                                     GetNodesReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetNodes");
  return Run(
      loop_, [&](Controller* c) { return c->GetNodes(*req); }, reply);
}

grpc::Status ClientService::GetPartitions(grpc::ServerContext* ctx, const GetPartitionsRequest* req,
                                          GetPartitionsReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetPartitions");
  return Run(
      loop_, [&](Controller* c) -> Expected<GetPartitionsReply> { return c->GetPartitions(); },
      reply);
}

grpc::Status ClientService::UpdateNode(grpc::ServerContext* ctx, const UpdateNodeRequest* req,
                                       UpdateNodeReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "UpdateNode");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<UpdateNodeReply> {
        Status st = c->UpdateNode(caller, *req);
        if (!st.ok()) return st;
        return UpdateNodeReply();
      },
      reply);
}

grpc::Status ClientService::UpdateJob(grpc::ServerContext* ctx, const UpdateJobRequest* req,
                                      UpdateJobReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "UpdateJob");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<UpdateJobReply> {
        Status st = c->UpdateJob(caller, *req);
        if (!st.ok()) return st;
        return UpdateJobReply();
      },
      reply);
}

grpc::Status ClientService::GetConfig(grpc::ServerContext* ctx, const GetConfigRequest* req,
                                      GetConfigReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetConfig");
  return Run(
      loop_, [&](Controller* c) -> Expected<GetConfigReply> { return c->GetConfig(); }, reply);
}

grpc::ServerUnaryReactor* ClientService::LaunchStep(grpc::CallbackServerContext* ctx,
                                                    const StepRequest* req, StepReply* reply) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  Expected<Caller> caller = CheckCall(ctx, *req, "LaunchStep");
  if (!caller.ok()) {
    reactor->Finish(ToGrpc(caller.status()));
    return reactor;
  }
  LaunchStepAsync(loop_, *caller, req, "", [reactor, reply](Expected<StepReply> r) {
    FinishWith(reactor, reply, std::move(r));
  });
  return reactor;
}

grpc::Status ClientService::ReleaseAllocation(grpc::ServerContext* ctx,
                                              const ReleaseAllocationRequest* req,
                                              ReleaseAllocationReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "ReleaseAllocation");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<ReleaseAllocationReply> {
        Status st = c->ReleaseAllocation(caller, *req);
        if (!st.ok()) return st;
        return ReleaseAllocationReply();
      },
      reply);
}

grpc::Status ClientService::GetPriorities(grpc::ServerContext* ctx, const GetPrioritiesRequest* req,
                                          GetPrioritiesReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetPriorities");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<GetPrioritiesReply> {
        GetPrioritiesReply r = c->GetPriorities(*req);
        c->access().HidePrivate(caller, &r);
        return r;
      },
      reply);
}

grpc::Status ClientService::GetShares(grpc::ServerContext* ctx, const GetSharesRequest* req,
                                      GetSharesReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetShares");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<GetSharesReply> {
        ASSIGN_OR_RETURN(GetSharesReply r, c->GetShares());
        c->access().HidePrivate(caller, &r);
        return r;
      },
      reply);
}

grpc::ServerUnaryReactor* ClientService::Keepalive(grpc::CallbackServerContext* ctx,
                                                   const KeepaliveRequest* req,
                                                   KeepaliveReply* reply) {
  Expected<Caller> caller = CheckCall(ctx, *req, "Keepalive");
  return RunOnOwner(ctx, loop_, caller.status(), reply, [caller, req](Controller* c) {
    return EmptyReplyOr<KeepaliveReply>(c->Keepalive(*caller, *req));
  });
}

grpc::Status ClientService::GetSteps(grpc::ServerContext* ctx, const GetStepsRequest* req,
                                     GetStepsReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "GetSteps");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<GetStepsReply> {
        GetStepsReply r = c->GetSteps(*req);
        c->access().HidePrivate(caller, &r);
        return r;
      },
      reply);
}

grpc::Status ClientService::Reservation(grpc::ServerContext* ctx, const ReservationRequest* req,
                                        ReservationReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "Reservation");
  return Run(
      loop_,
      [&](Controller* c) -> Expected<ReservationReply> {
        ASSIGN_OR_RETURN(ReservationReply r, c->Reservation(caller, *req));
        c->access().HidePrivate(caller, &r);
        return r;
      },
      reply);
}

grpc::Status ClientService::AuthMunge(grpc::ServerContext* ctx, const AuthMungeRequest* req,
                                      AuthMungeReply* reply) {
  if (!munge_enabled_) {
    return ToGrpc(FailedPrecondition(
        "The controller does not accept MUNGE credentials (AuthType is not auth/munge)"));
  }
  LIMITS_OR_RETURN(req, "AuthMunge");
  Expected<MungeIdentity> who = MungeDecode(munge_socket_, req->credential());
  if (!who.ok()) {
    LogRefused(ctx, "AuthMunge", who.status().message());
    // Never UNAVAILABLE: clients report that as "Unable to contact slurm controller".
    Status st = who.status();
    if (st.code() == Code::kUnavailable) st = Internal(st.message());
    return ToGrpc(st);
  }
  Credential cred{who->uid, who->gid, clock_->NowMs() + munge_token_ttl_ms_};
  reply->set_token(SignCredential(key_, cred));
  reply->set_expires_ms(cred.expires_ms);
  reply->set_uid(cred.uid);
  reply->set_gid(cred.gid);
  return grpc::Status::OK;
}

grpc::Status ClientService::Sacctmgr(grpc::ServerContext* ctx, const SacctmgrRequest* req,
                                     SacctmgrReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "Sacctmgr");
  return Run(
      loop_, [&](Controller* c) { return c->Sacctmgr(caller, *req); }, reply);
}

grpc::Status ClientService::GetStats(grpc::ServerContext* ctx, const GetStatsRequest* req,
                                     GetStatsReply* reply) {
  AUTH_OR_RETURN(caller);
  grpc::Status st = Run(
      loop_, [&](Controller* c) { return c->GetStats(caller, req->reset()); }, reply);
  if (!st.ok() || !rpc_stats_) return st;
  for (const auto& [method, m] : rpc_stats_->Snapshot()) {
    RpcMethodStats* out = reply->add_rpcs();
    out->set_method(method);
    out->set_count(m.count);
    out->set_total_us(m.total_us);
  }
  if (req->reset()) rpc_stats_->Reset();
  return st;
}

grpc::Status ClientService::StepUsage(grpc::ServerContext* ctx, const StepUsageRequest* req,
                                      StepUsageReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "StepUsage");
  auto promise = std::make_shared<std::promise<Expected<StepUsageReply>>>();
  auto answer = promise->get_future();
  StepUsageAsync(loop_, caller, *req,
                 [promise](Expected<StepUsageReply> r) { promise->set_value(std::move(r)); });
  Expected<StepUsageReply> r = answer.get();
  if (!r.ok()) return ToGrpc(r.status());
  *reply = std::move(r).value();
  return grpc::Status::OK;
}

// Slurm's default and the longest a caller may ask for when no limit is configured.
constexpr int64_t kDefaultTokenLifespanS = 1800;
constexpr int64_t kMaxTokenLifespanS = 365LL * 24 * 3600;

grpc::Status ClientService::IssueToken(grpc::ServerContext* ctx, const IssueTokenRequest* req,
                                       IssueTokenReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "IssueToken");
  if (!verifier_.jwt_enabled())
    return ToGrpc(FailedPrecondition("auth/jwt is not enabled (AuthAltTypes=auth/jwt)"));
  const bool privileged = caller.uid == 0 || caller.uid == getuid();
  if (token_creation_disabled_ && !privileged)
    return ToGrpc(PermissionDenied("Access/permission denied (token creation is disabled)"));
  Expected<std::string> own = UserNameOf(caller.uid);
  std::string user = req->username().empty() ? (own.ok() ? *own : "") : req->username();
  if (user.empty()) return ToGrpc(InvalidArgument(own.status().message()));
  if (!privileged && (!own.ok() || user != *own)) {
    LogRefused(ctx, "IssueToken", "uid " + std::to_string(caller.uid) + " asked for " + user);
    return ToGrpc(PermissionDenied("Access/permission denied"));
  }
  if (!LookUpUser(user).ok()) return ToGrpc(InvalidArgument("Invalid user: " + user));
  int64_t lifespan = req->lifespan_s() == 0 ? kDefaultTokenLifespanS : req->lifespan_s();
  const int64_t limit = max_token_lifespan_s_ > 0 ? max_token_lifespan_s_ : kMaxTokenLifespanS;
  if (req->lifespan_s() == 0) lifespan = std::min(lifespan, limit);
  if (lifespan < 0 || lifespan > limit)
    return ToGrpc(InvalidArgument("Invalid lifespan " + std::to_string(req->lifespan_s()) +
                                  ": must be 1.." + std::to_string(limit) + " seconds"));
  const int64_t now_s = clock_->NowMs() / 1000;
  Expected<std::string> token = SignJwt(verifier_.jwt_key(), user, now_s, lifespan);
  if (!token.ok()) return ToGrpc(token.status());
  loop_->logger()->info("created token user={} lifespan_s={} by_uid={}", user, lifespan,
                        caller.uid);
  reply->set_token(*token);
  reply->set_expires(now_s + lifespan);
  return grpc::Status::OK;
}

Status ClientService::RequireAdmin(const Caller& caller) const {
  Expected<bool> admin = loop_->Call<bool>(
      [&](Controller* c) -> Expected<bool> { return c->access().IsAdmin(caller); });
  if (!admin.ok()) return admin.status();
  return *admin ? Status::Ok() : PermissionDenied("Access/permission denied");
}

grpc::Status ClientService::Takeover(grpc::ServerContext* ctx, const TakeoverRequest* req,
                                     TakeoverReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "Takeover");
  if (Status st = RequireAdmin(caller); !st.ok()) return ToGrpc(st);
  if (!hand_over_) {
    return ToGrpc(FailedPrecondition(
        "no backup controller to take over (one SlurmctldHost, or StateStorageType is not "
        "state/pgsql)"));
  }
  loop_->logger()->warn("handing over to a standby controller by_uid={}", caller.uid);
  hand_over_();
  *reply = TakeoverReply();
  return grpc::Status::OK;
}

grpc::Status ClientService::Reconfigure(grpc::ServerContext* ctx, const ReconfigureRequest* req,
                                        ReconfigureReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "Reconfigure");
  if (Status st = RequireAdmin(caller); !st.ok()) return ToGrpc(st);
  if (!reconfigure_) return ToGrpc(FailedPrecondition("reconfigure is not available"));
  loop_->logger()->warn("reconfigure requested by_uid={}", caller.uid);
  Expected<std::vector<std::string>> changes = reconfigure_();
  if (!changes.ok()) return ToGrpc(changes.status());
  *reply = ReconfigureReply();
  for (const std::string& c : *changes) reply->add_changes(c);
  return grpc::Status::OK;
}

grpc::Status ClientService::SetDebug(grpc::ServerContext* ctx, const SetDebugRequest* req,
                                     SetDebugReply* reply) {
  AUTH_OR_RETURN(caller);
  LIMITS_OR_RETURN(req, "SetDebug");
  Expected<log::Level> level = log::ParseLevel(req->level());
  if (!level.ok()) return ToGrpc(level.status());
  if (Status st = RequireAdmin(caller); !st.ok()) return ToGrpc(st);
  // The level changes for every component: they all log through this one logger.
  loop_->logger()->warn("log level set level={} by_uid={}", req->level(), caller.uid);
  loop_->logger()->set_level(*level);
  *reply = SetDebugReply();
  return grpc::Status::OK;
}

}  // namespace sluice::ctld
