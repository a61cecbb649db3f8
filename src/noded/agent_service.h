// AgentService: the gRPC AgentApi of sluiced. Every request must carry a valid NodeAuth
// from the controller (NodeVerifier; sender "sluicectld"); anything else is rejected with
// UNAUTHENTICATED before it reaches the Agent. One service may serve several nodes'
// Agents (sluiced --nodes): a request goes to the Agent of its `node` field; a request
// for a node not served here is refused (NOT_FOUND) unstarted, and one without a node
// (older controllers) goes to the only Agent, if there is exactly one.
#pragma once

#include <map>
#include <string>

#include "node.grpc.pb.h"
#include "noded/agent.h"
#include "rpc/node_auth.h"

namespace sluice {

inline constexpr char kControllerSender[] = "sluicectld";

class AgentService final : public AgentApi::Service {
 public:
  AgentService(Agent* agent, NodeVerifier* verifier)
      : agents_{{agent->options().node_name, agent}}, verifier_(verifier) {}
  // node name -> its Agent.
  AgentService(std::map<std::string, Agent*> agents, NodeVerifier* verifier)
      : agents_(std::move(agents)), verifier_(verifier) {}

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
  grpc::Status Reregister(grpc::ServerContext* ctx, const ReregisterRequest* req,
                          ReregisterReply* reply) override;

 private:
  // Authenticates `req` and finds the Agent of its node (*agent).
  template <typename M>
  grpc::Status Check(const char* method, const M& req, Agent** agent);
  std::map<std::string, Agent*> agents_;
  NodeVerifier* verifier_;
};

}  // namespace sluice
