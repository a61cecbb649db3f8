// AgentService: the gRPC AgentApi of sluiced. Every request must carry a valid NodeAuth
// from the controller (NodeVerifier; sender "sluicectld"); anything else is rejected with
// UNAUTHENTICATED before it reaches the Agent.
#pragma once

#include "node.grpc.pb.h"
#include "noded/agent.h"
#include "rpc/node_auth.h"

namespace sluice {

inline constexpr char kControllerSender[] = "sluicectld";

class AgentService final : public AgentApi::Service {
 public:
  AgentService(Agent* agent, NodeVerifier* verifier) : agent_(agent), verifier_(verifier) {}

  grpc::Status LaunchJob(grpc::ServerContext* ctx, const LaunchJobRequest* req,
                         LaunchJobReply* reply) override;
  grpc::Status SignalJob(grpc::ServerContext* ctx, const SignalJobRequest* req,
                         SignalJobReply* reply) override;
  grpc::Status UpdateJobLimit(grpc::ServerContext* ctx, const UpdateJobLimitRequest* req,
                              UpdateJobLimitReply* reply) override;
  grpc::Status LaunchTasks(grpc::ServerContext* ctx, const LaunchTasksRequest* req,
                           LaunchTasksReply* reply) override;
  grpc::Status StepUsage(grpc::ServerContext* ctx, const AgentStepUsageRequest* req,
                         AgentStepUsageReply* reply) override;

 private:
  template <typename M>
  grpc::Status Check(const char* method, const M& req);
  Agent* agent_;
  NodeVerifier* verifier_;
};

}  // namespace sluice
