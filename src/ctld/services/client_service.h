// ClientService: the gRPC ClientApi. Every call first verifies the "x-sluice-cred"
// metadata token (a Sluice credential, or with auth/jwt a JWT; see token_verifier.h;
// no/invalid token -> UNAUTHENTICATED "Invalid authentication credential", or the JWT's
// reason); the caller's uid/gid come only from that token. The
// operation then runs on the owner thread (OwnerLoop::Call) and the reply is sent
// after the state it changed has been committed. The calls that come in numbers —
// SubmitJob, and on every srun's path LaunchStep and Keepalive — use gRPC's callback API:
// they are finished from the owner thread (or the last agent's answer) instead of waking
// a blocked RPC thread.
#pragma once

#include <unistd.h>

#include <string>

#include "acct/acct_writer.h"
#include "client.grpc.pb.h"
#include "common/clock.h"
#include "ctld/runtime/owner_loop.h"
#include "ctld/services/token_verifier.h"
#include "rpc/rpc_stats.h"

namespace sluice::ctld {

inline constexpr char kMsgBadCredential[] = "Invalid authentication credential";

using ClientApiBase =
    ClientApi::WithCallbackMethod_SubmitJob<ClientApi::WithCallbackMethod_LaunchStep<
        ClientApi::WithCallbackMethod_Keepalive<ClientApi::Service>>>;

class ClientService final : public ClientApiBase {
 public:
  ClientService(std::string cluster_key, const Clock* clock, OwnerLoop* loop)
      : key_(cluster_key), clock_(clock), loop_(loop), verifier_(key_, clock, getuid()) {}

  // AuthAltTypes=auth/jwt: accept JWTs signed with `key` and issue them (IssueToken),
  // no longer than `max_lifespan_s` (0: no limit); `creation_disabled`: only admins may
  // ask for one (AuthAltParameters=disable_token_creation).
  void EnableJwt(std::string key, int64_t max_lifespan_s, bool creation_disabled) {
    verifier_.EnableJwt(std::move(key));
    max_token_lifespan_s_ = max_lifespan_s;
    token_creation_disabled_ = creation_disabled;
  }
  const TokenVerifier& verifier() const { return verifier_; }

  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* ctx, const SubmitRequest* req,
                                      SubmitReply* reply) override;
  grpc::Status GetJobs(grpc::ServerContext* ctx, const GetJobsRequest* req,
                       GetJobsReply* reply) override;
  grpc::Status CancelJobs(grpc::ServerContext* ctx, const CancelRequest* req,
                          CancelReply* reply) override;
  grpc::Status GetNodes(grpc::ServerContext* ctx, const GetNodesRequest* req,
                        GetNodesReply* reply) override;
  grpc::Status GetPartitions(grpc::ServerContext* ctx, const GetPartitionsRequest* req,
                             GetPartitionsReply* reply) override;
  grpc::Status UpdateNode(grpc::ServerContext* ctx, const UpdateNodeRequest* req,
                          UpdateNodeReply* reply) override;
  grpc::Status UpdateJob(grpc::ServerContext* ctx, const UpdateJobRequest* req,
                         UpdateJobReply* reply) override;
  grpc::Status GetConfig(grpc::ServerContext* ctx, const GetConfigRequest* req,
                         GetConfigReply* reply) override;
  // Creates the step on the owner thread; finishes once every node agent of the step
  // answered its LaunchTasks.
  grpc::ServerUnaryReactor* LaunchStep(grpc::CallbackServerContext* ctx, const StepRequest* req,
                                       StepReply* reply) override;
  grpc::Status ReleaseAllocation(grpc::ServerContext* ctx, const ReleaseAllocationRequest* req,
                                 ReleaseAllocationReply* reply) override;
  grpc::Status GetPriorities(grpc::ServerContext* ctx, const GetPrioritiesRequest* req,
                             GetPrioritiesReply* reply) override;
  grpc::Status GetShares(grpc::ServerContext* ctx, const GetSharesRequest* req,
                         GetSharesReply* reply) override;
  grpc::ServerUnaryReactor* Keepalive(grpc::CallbackServerContext* ctx, const KeepaliveRequest* req,
                                      KeepaliveReply* reply) override;
  grpc::Status GetSteps(grpc::ServerContext* ctx, const GetStepsRequest* req,
                        GetStepsReply* reply) override;
  grpc::Status Reservation(grpc::ServerContext* ctx, const ReservationRequest* req,
                           ReservationReply* reply) override;
  grpc::Status Sacctmgr(grpc::ServerContext* ctx, const SacctmgrRequest* req,
                        SacctmgrReply* reply) override;
  // AuthType=auth/munge: decodes the MUNGE credential with the controller's munged and
  // returns a credential token for the uid/gid inside it (no x-sluice-cred needed).
  // Invalid/expired/replayed credentials -> UNAUTHENTICATED "Invalid MUNGE credential: ..."
  // MUNGE not configured -> FAILED_PRECONDITION.
  grpc::Status AuthMunge(grpc::ServerContext* ctx, const AuthMungeRequest* req,
                         AuthMungeReply* reply) override;
  // Turns AuthMunge on, decoding with the munged at `socket` ("" = libmunge's default);
  // issued tokens live `token_ttl_ms`.
  void EnableMunge(std::string socket, int64_t token_ttl_ms) {
    munge_enabled_ = true;
    munge_socket_ = std::move(socket);
    munge_token_ttl_ms_ = token_ttl_ms;
  }

  // sacct/sreport: the live records (owner thread) merged with the accounting store's
  // history (queried on this RPC thread). No accounting: "Slurm accounting storage is
  // disabled" (FAILED_PRECONDITION).
  grpc::Status AcctJobs(grpc::ServerContext* ctx, const AcctJobsRequest* req,
                        AcctJobsReply* reply) override;
  void SetAccounting(acct::AcctWriter* writer) { acct_ = writer; }
  // sdiag: the controller's counters plus the RPC counts of `rpc_stats` (the server's).
  grpc::Status GetStats(grpc::ServerContext* ctx, const GetStatsRequest* req,
                        GetStatsReply* reply) override;
  // sstat: waits for the step's node agents (each answers within AgentLink's deadline).
  grpc::Status StepUsage(grpc::ServerContext* ctx, const StepUsageRequest* req,
                         StepUsageReply* reply) override;
  void SetRpcStats(RpcStats* stats) { rpc_stats_ = stats; }
  // scontrol token: auth/jwt off -> FAILED_PRECONDITION; another user's token asked by
  // anyone but root or the controller's user -> PERMISSION_DENIED; a lifespan < 0 or
  // over the limit -> INVALID_ARGUMENT.
  grpc::Status IssueToken(grpc::ServerContext* ctx, const IssueTokenRequest* req,
                          IssueTokenReply* reply) override;
  // scontrol setdebug: admins only (PERMISSION_DENIED); a bad level -> INVALID_ARGUMENT.
  grpc::Status SetDebug(grpc::ServerContext* ctx, const SetDebugRequest* req,
                        SetDebugReply* reply) override;
  // scontrol takeover: admins only; FAILED_PRECONDITION without a standby to take over.
  grpc::Status Takeover(grpc::ServerContext* ctx, const TakeoverRequest* req,
                        TakeoverReply* reply) override;
  // How this controller hands over (the daemon's clean stop, which releases the lease);
  // unset: no standby can take over.
  void SetHandOver(std::function<void()> hand_over) { hand_over_ = std::move(hand_over); }
  // scontrol reconfigure: admins only; the file's errors -> INVALID_ARGUMENT, changes that
  // need a restart -> FAILED_PRECONDITION (runtime/reconfigure.h).
  grpc::Status Reconfigure(grpc::ServerContext* ctx, const ReconfigureRequest* req,
                           ReconfigureReply* reply) override;
  // What applies a new configuration (the daemon's Reconfigurer); unset: UNIMPLEMENTED.
  void SetReconfigure(std::function<Expected<std::vector<std::string>>()> reconfigure) {
    reconfigure_ = std::move(reconfigure);
  }

 private:
  // Reports a request refused before it reached the controller (oversize, bad credential).
  void LogRefused(grpc::ServerContextBase* ctx, std::string_view rpc,
                  std::string_view detail) const {
    loop_->logger()->warn("request refused rpc={} peer={} detail={:?}", rpc, ctx->peer(), detail);
  }
  acct::AcctWriter* acct_ = nullptr;
  RpcStats* rpc_stats_ = nullptr;
  Expected<Caller> Authenticate(grpc::ServerContextBase* ctx) const;
  // A callback method's caller, once authenticated and its request within the limits.
  template <typename Req>
  Expected<Caller> CheckCall(grpc::CallbackServerContext* ctx, const Req& req,
                             const char* what) const;
  // PermissionDenied unless `caller` is an admin (the admin-only RPCs).
  Status RequireAdmin(const Caller& caller) const;
  std::string key_;
  const Clock* clock_;
  OwnerLoop* loop_;
  TokenVerifier verifier_;
  int64_t max_token_lifespan_s_ = 0;
  bool token_creation_disabled_ = false;
  std::function<void()> hand_over_;
  std::function<Expected<std::vector<std::string>>()> reconfigure_;
  bool munge_enabled_ = false;
  std::string munge_socket_;
  int64_t munge_token_ttl_ms_ = 10 * 60 * 1000;
};

}  // namespace sluice::ctld
