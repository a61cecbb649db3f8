#include "client/cluster_client.h"

#include <chrono>
#include <algorithm>
#include <thread>

#include "rpc/connect_failure.h"
#include "rpc/credential.h"
#include "rpc/grpc_limits.h"
#include "rpc/protocol.h"
#include "rpc/request_limits.h"

namespace sluice {

Status StatusFromGrpc(const grpc::Status& status) {
  const std::string& msg = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::UNAVAILABLE:
      return Unavailable(msg.empty() || GrpcNeverConnected(msg) ? kConnectFailure : kLostReply);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Unavailable(kTimedOut);
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      return InvalidArgument(msg);
    case grpc::StatusCode::NOT_FOUND:
      return NotFound(msg);
    case grpc::StatusCode::ALREADY_EXISTS:
      return Status(Code::kAlreadyExists, msg);
    case grpc::StatusCode::PERMISSION_DENIED:
      return PermissionDenied(msg.empty() ? "Access/permission denied" : msg);
    case grpc::StatusCode::UNAUTHENTICATED:
      return Unauthenticated(msg.empty() ? "Invalid authentication credential" : msg);
    case grpc::StatusCode::FAILED_PRECONDITION:
      return FailedPrecondition(msg);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      // gRPC's own message size limit (rpc/grpc_limits.h), on either side.
      if (msg.find("larger than max") != std::string::npos) {
        return InvalidArgument("Request exceeds the maximum message size (" + msg + ")");
      }
      return Status(Code::kResourceExhausted, msg);
    default:
      return Internal(msg.empty() ? "Unexpected controller error" : msg);
  }
}

std::unique_ptr<ClusterClient> ClusterClient::Create(const std::string& target, std::string token,
                                                     int deadline_ms) {
  return Create(std::vector<std::string>{target}, std::move(token), deadline_ms);
}

std::unique_ptr<ClusterClient> ClusterClient::Create(const std::vector<std::string>& targets,
                                                     std::string token, int deadline_ms) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (const auto& t : targets) channels.push_back(CreateLimitedChannel(t));
  // Connect to the primary now, while the caller prepares its first request.
  (void)channels.front()->GetState(/*try_to_connect=*/true);
  return std::make_unique<ClusterClient>(std::move(channels), std::move(token), deadline_ms);
}

ClusterClient::ClusterClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                             int deadline_ms)
    : ClusterClient(std::vector<std::shared_ptr<grpc::Channel>>{std::move(channel)},
                    std::move(token), deadline_ms) {}

ClusterClient::ClusterClient(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
                             std::string token, int deadline_ms)
    : channels_(channels), token_(std::move(token)), deadline_ms_(deadline_ms) {
  for (const auto& c : channels) stubs_.push_back(ClientApi::NewStub(c));
}

void ClusterClient::AwaitReconnect(std::chrono::steady_clock::time_point until) const {
  for (const auto& c : channels_) (void)c->GetState(/*try_to_connect=*/true);
  for (size_t i = 0; std::chrono::steady_clock::now() < until; ++i) {
    const auto& c = channels_[i % channels_.size()];
    const grpc_connectivity_state s = c->GetState(/*try_to_connect=*/true);
    if (s == GRPC_CHANNEL_READY) return;
    const auto slice = std::min(until, std::chrono::steady_clock::now() + kReconnectSlice);
    c->WaitForStateChange(s, std::chrono::system_clock::now() +
                                 (slice - std::chrono::steady_clock::now()));
  }
}

template <typename Req, typename Rep, typename Method>
Expected<Rep> ClusterClient::Call(Method method, const Req& req) {
  RETURN_IF_ERROR(CheckBeforeSending(req));
  const auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(deadline_ms_);
  // From the controller that answered last; one that cannot be reached is down (or a
  // standby): the call was never sent, so it goes to the next. When none leads, a
  // takeover may be under way: try them all again for up to failover_wait_ms_.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(failover_wait_ms_);
  for (;;) {
    Rep rep;
    grpc::Status st = CallEachController(stubs_.size(), &current_, false, [&](size_t at) {
      grpc::ClientContext ctx;
      ctx.set_deadline(deadline);
      ctx.AddMetadata(kProtocolMetadataKey, std::to_string(SpokenProtocol()));
      if (!token_.empty()) ctx.AddMetadata(kCredMetadataKey, token_);
      if (!user_name_.empty()) ctx.AddMetadata(kUserMetadataKey, user_name_);
      rep.Clear();
      return ((*stubs_[at]).*method)(&ctx, req, &rep);
    });
    if (st.ok()) return rep;
    if (st.error_code() != grpc::StatusCode::UNAVAILABLE || !GrpcNeverConnected(st.error_message()))
      return StatusFromGrpc(st);
    const auto retry_at = std::chrono::steady_clock::now() + kFailoverRetry;
    if (retry_at >= give_up || std::chrono::system_clock::now() + kFailoverRetry >= deadline)
      return StatusFromGrpc(st);
    AwaitReconnect(retry_at);
  }
}

Expected<SubmitReply> ClusterClient::SubmitJob(const SubmitRequest& req) {
  return Call<SubmitRequest, SubmitReply>(&ClientApi::Stub::SubmitJob, req);
}
Expected<GetJobsReply> ClusterClient::GetJobs(const GetJobsRequest& req) {
  return Call<GetJobsRequest, GetJobsReply>(&ClientApi::Stub::GetJobs, req);
}
Expected<CancelReply> ClusterClient::CancelJobs(const CancelRequest& req) {
  return Call<CancelRequest, CancelReply>(&ClientApi::Stub::CancelJobs, req);
}
Expected<GetNodesReply> ClusterClient::GetNodes(const GetNodesRequest& req) {
  return Call<GetNodesRequest, GetNodesReply>(&ClientApi::Stub::GetNodes, req);
}
Expected<GetPartitionsReply> ClusterClient::GetPartitions(const GetPartitionsRequest& req) {
  return Call<GetPartitionsRequest, GetPartitionsReply>(&ClientApi::Stub::GetPartitions, req);
}
Expected<UpdateNodeReply> ClusterClient::UpdateNode(const UpdateNodeRequest& req) {
  return Call<UpdateNodeRequest, UpdateNodeReply>(&ClientApi::Stub::UpdateNode, req);
}
Expected<UpdateJobReply> ClusterClient::UpdateJob(const UpdateJobRequest& req) {
  return Call<UpdateJobRequest, UpdateJobReply>(&ClientApi::Stub::UpdateJob, req);
}
Expected<GetConfigReply> ClusterClient::GetConfig(const GetConfigRequest& req) {
  return Call<GetConfigRequest, GetConfigReply>(&ClientApi::Stub::GetConfig, req);
}

Expected<StepReply> ClusterClient::LaunchStep(const StepRequest& req) {
  return Call<StepRequest, StepReply>(&ClientApi::Stub::LaunchStep, req);
}

Expected<ReleaseAllocationReply> ClusterClient::ReleaseAllocation(
    const ReleaseAllocationRequest& req) {
  return Call<ReleaseAllocationRequest, ReleaseAllocationReply>(&ClientApi::Stub::ReleaseAllocation,
                                                                req);
}

Expected<GetPrioritiesReply> ClusterClient::GetPriorities(const GetPrioritiesRequest& req) {
  return Call<GetPrioritiesRequest, GetPrioritiesReply>(&ClientApi::Stub::GetPriorities, req);
}

Expected<GetSharesReply> ClusterClient::GetShares(const GetSharesRequest& req) {
  return Call<GetSharesRequest, GetSharesReply>(&ClientApi::Stub::GetShares, req);
}

Expected<KeepaliveReply> ClusterClient::Keepalive(const KeepaliveRequest& req) {
  return Call<KeepaliveRequest, KeepaliveReply>(&ClientApi::Stub::Keepalive, req);
}
Expected<GetStepsReply> ClusterClient::GetSteps(const GetStepsRequest& req) {
  return Call<GetStepsRequest, GetStepsReply>(&ClientApi::Stub::GetSteps, req);
}
Expected<ReservationReply> ClusterClient::Reservation(const ReservationRequest& req) {
  return Call<ReservationRequest, ReservationReply>(&ClientApi::Stub::Reservation, req);
}
Expected<AcctJobsReply> ClusterClient::AcctJobs(const AcctJobsRequest& req) {
  return Call<AcctJobsRequest, AcctJobsReply>(&ClientApi::Stub::AcctJobs, req);
}

Expected<GetStatsReply> ClusterClient::GetStats(const GetStatsRequest& req) {
  return Call<GetStatsRequest, GetStatsReply>(&ClientApi::Stub::GetStats, req);
}

Expected<StepUsageReply> ClusterClient::StepUsage(const StepUsageRequest& req) {
  return Call<StepUsageRequest, StepUsageReply>(&ClientApi::Stub::StepUsage, req);
}
Expected<IssueTokenReply> ClusterClient::IssueToken(const IssueTokenRequest& req) {
  return Call<IssueTokenRequest, IssueTokenReply>(&ClientApi::Stub::IssueToken, req);
}
Expected<SetDebugReply> ClusterClient::SetDebug(const SetDebugRequest& req) {
  return Call<SetDebugRequest, SetDebugReply>(&ClientApi::Stub::SetDebug, req);
}

Expected<TakeoverReply> ClusterClient::Takeover(const TakeoverRequest& req) {
  return Call<TakeoverRequest, TakeoverReply>(&ClientApi::Stub::Takeover, req);
}
Expected<ReconfigureReply> ClusterClient::Reconfigure(const ReconfigureRequest& req) {
  return Call<ReconfigureRequest, ReconfigureReply>(&ClientApi::Stub::Reconfigure, req);
}

std::vector<bool> ClusterClient::PingEach() {
  std::vector<bool> up;
  for (const auto& stub : stubs_) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(std::min(deadline_ms_, kPingDeadlineMs)));
    ctx.AddMetadata(kProtocolMetadataKey, std::to_string(SpokenProtocol()));
    if (!token_.empty()) ctx.AddMetadata(kCredMetadataKey, token_);
    GetConfigReply rep;
    grpc::Status st = stub->GetConfig(&ctx, GetConfigRequest(), &rep);
    const std::string& msg = st.error_message();
    const bool silent = st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
                        (st.error_code() == grpc::StatusCode::UNAVAILABLE &&
                         msg.find(kStandbyAnswer) == std::string::npos);
    up.push_back(st.ok() || !silent);
  }
  return up;
}

Expected<SacctmgrReply> ClusterClient::Sacctmgr(const SacctmgrRequest& req) {
  return Call<SacctmgrRequest, SacctmgrReply>(&ClientApi::Stub::Sacctmgr, req);
}

Expected<AuthMungeReply> ClusterClient::AuthMunge(const AuthMungeRequest& req) {
  return Call<AuthMungeRequest, AuthMungeReply>(&ClientApi::Stub::AuthMunge, req);
}

}  // namespace sluice
