// ClusterClient: ClientApiInterface over gRPC (TCP) to the controller.
//   auto client = ClusterClient::Create("127.0.0.1:6817", token);
//   Expected<GetJobsReply> jobs = client->GetJobs({});
// Every call carries `token` in metadata "x-sluice-cred" (rpc/credential.h) and a
// deadline (default 30 s). gRPC failures become Status values with Slurm's wording:
//   UNAVAILABLE        -> kUnavailable "Unable to contact slurm controller (connect failure)"
//                         when no connection was made (rpc/connect_failure.h: the request
//                         was never sent, so it may be sent again), else (the connection
//                         was lost during the call) "Zero Bytes were transmitted or received"
//   DEADLINE_EXCEEDED  -> kUnavailable "Socket timed out on send/recv operation"
//   other codes        -> the matching Code with the server's message unchanged.
// The controller therefore must not use UNAVAILABLE for request-specific errors.
// With several controllers (SlurmctldHost lines) a call that cannot connect to one goes to
// the next (a standby does not listen), and later calls start from the one that answered.
// Thread-safe (gRPC stubs are); one instance per process is enough.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "client.grpc.pb.h"
#include "client/api.h"

namespace sluice {

inline constexpr int kDefaultRpcDeadlineMs = 30'000;
inline constexpr int kPingDeadlineMs = 5'000;  // scontrol ping, per controller
inline constexpr char kConnectFailure[] = "Unable to contact slurm controller (connect failure)";
inline constexpr char kTimedOut[] = "Socket timed out on send/recv operation";
inline constexpr char kLostReply[] = "Zero Bytes were transmitted or received";

// grpc::Status -> Status, as described above.
Status StatusFromGrpc(const grpc::Status& status);

class ClusterClient : public ClientApiInterface {
 public:
  // `target` is "host:port". No connection is made until the first call.
  static std::unique_ptr<ClusterClient> Create(const std::string& target, std::string token,
                                               int deadline_ms = kDefaultRpcDeadlineMs);
  // `targets`: every controller, the primary first (rpc/grpc_limits.h ControllerTargets).
  static std::unique_ptr<ClusterClient> Create(const std::vector<std::string>& targets,
                                               std::string token,
                                               int deadline_ms = kDefaultRpcDeadlineMs);
  ClusterClient(std::shared_ptr<grpc::Channel> channel, std::string token, int deadline_ms);
  ClusterClient(const std::vector<std::shared_ptr<grpc::Channel>>& channels, std::string token,
                int deadline_ms);

  Expected<SubmitReply> SubmitJob(const SubmitRequest& req) override;
  Expected<GetJobsReply> GetJobs(const GetJobsRequest& req) override;
  Expected<CancelReply> CancelJobs(const CancelRequest& req) override;
  Expected<GetNodesReply> GetNodes(const GetNodesRequest& req) override;
  Expected<GetPartitionsReply> GetPartitions(const GetPartitionsRequest& req) override;
  Expected<UpdateNodeReply> UpdateNode(const UpdateNodeRequest& req) override;
  Expected<UpdateJobReply> UpdateJob(const UpdateJobRequest& req) override;
  Expected<GetConfigReply> GetConfig(const GetConfigRequest& req) override;
  Expected<StepReply> LaunchStep(const StepRequest& req) override;
  Expected<ReleaseAllocationReply> ReleaseAllocation(const ReleaseAllocationRequest& req) override;
  Expected<GetPrioritiesReply> GetPriorities(const GetPrioritiesRequest& req) override;
  Expected<GetSharesReply> GetShares(const GetSharesRequest& req) override;
  Expected<KeepaliveReply> Keepalive(const KeepaliveRequest& req) override;
  Expected<GetStepsReply> GetSteps(const GetStepsRequest& req) override;
  Expected<ReservationReply> Reservation(const ReservationRequest& req) override;
  Expected<SacctmgrReply> Sacctmgr(const SacctmgrRequest& req) override;
  // AuthType=auth/munge: trade a MUNGE credential for a token (sent without one).
  Expected<AuthMungeReply> AuthMunge(const AuthMungeRequest& req);
  void set_token(std::string token) { token_ = std::move(token); }
  // Several controllers: when none leads (all down or standing by), how long a call keeps
  // trying them all (a takeover takes up to SlurmctldTimeout and a second). 0: fail at once.
  void set_failover_wait_ms(int64_t ms) { failover_wait_ms_ = ms; }
  Expected<AcctJobsReply> AcctJobs(const AcctJobsRequest& req) override;
  Expected<GetStatsReply> GetStats(const GetStatsRequest& req) override;
  Expected<StepUsageReply> StepUsage(const StepUsageRequest& req) override;
  Expected<IssueTokenReply> IssueToken(const IssueTokenRequest& req) override;
  Expected<SetDebugReply> SetDebug(const SetDebugRequest& req) override;
  Expected<TakeoverReply> Takeover(const TakeoverRequest& req) override;
  Expected<ReconfigureReply> Reconfigure(const ReconfigureRequest& req) override;
  std::vector<bool> PingEach() override;
  // Acts for `user` (metadata "x-sluice-user"): a REST proxy passing on
  // X-SLURM-USER-NAME; the controller decides whether the token may (token_verifier.h).
  void set_user_name(std::string user) { user_name_ = std::move(user); }

 private:
  template <typename Req, typename Rep, typename Method>
  Expected<Rep> Call(Method method, const Req& req);

  // Waits until `until` or until a controller's channel is connected. gRPC advances a
  // connection attempt only while some thread of the process polls: a client with no
  // server and no call in flight (sluicerestd, a tool's threads between retries) would
  // leave it to gRPC's backup poller, every 5 s, past the 1 s an attempt may take
  // (rpc/grpc_limits.h), and fail for seconds against a controller that was up.
  void AwaitReconnect(std::chrono::steady_clock::time_point until) const;

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<ClientApi::Stub>> stubs_;
  std::atomic<size_t> current_{0};
  int64_t failover_wait_ms_ = 0;
  static constexpr std::chrono::milliseconds kFailoverRetry{200};
  static constexpr std::chrono::milliseconds kReconnectSlice{50};
  std::string token_;
  std::string user_name_;
  int deadline_ms_;
};

}  // namespace sluice
