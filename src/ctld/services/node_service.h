// NodeService: the gRPC NodeApi (agent -> controller). Each request's NodeAuth is
// verified (NodeVerifier, method = the rpc name, e.g. "RegisterNode"); the signer must
// be the node the request speaks for. Operations run on the owner thread. Relay is srun's
// LaunchStep/Keepalive forwarded by its node agent.
#pragma once

#include <string>

#include "common/clock.h"
#include "ctld/runtime/owner_loop.h"
#include "node.grpc.pb.h"
#include "rpc/node_auth.h"

namespace sluice::ctld {

// Heartbeat, JobEnded and Relay come in numbers (thousands of nodes, every job's end):
// they are on gRPC's callback API, finished from the owner thread.
using NodeApiBase = NodeApi::WithCallbackMethod_Heartbeat<
    NodeApi::WithCallbackMethod_JobEnded<NodeApi::WithCallbackMethod_Relay<NodeApi::Service>>>;

class NodeService final : public NodeApiBase {
 public:
  NodeService(std::string cluster_key, const Clock* clock, OwnerLoop* loop)
      : verifier_(std::move(cluster_key), clock), loop_(loop) {}

  grpc::Status RegisterNode(grpc::ServerContext* ctx, const RegisterNodeRequest* req,
                            RegisterNodeReply* reply) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* ctx, const HeartbeatRequest* req,
                                      HeartbeatReply* reply) override;
  grpc::ServerUnaryReactor* JobEnded(grpc::CallbackServerContext* ctx, const JobEndedRequest* req,
                                     JobEndedReply* reply) override;
  // The caller is the request's uid/gid, vouched for by the signing node, which must
  // hold part of the job's allocation.
  grpc::ServerUnaryReactor* Relay(grpc::CallbackServerContext* ctx, const RelayRequest* req,
                                  RelayReply* reply) override;

 private:
  template <typename M>
  Status Check(const char* method, const M& req);
  NodeVerifier verifier_;
  OwnerLoop* loop_;
};

}  // namespace sluice::ctld
