// AgentLink: how the controller talks to node agents (proto AgentApi). Calls never
// block the caller; `done` callbacks run on another thread (the controller re-posts them
// to its owner thread). GrpcAgentLink caches one channel per agent address and signs every request
// with the cluster key (NodeSigner, sender "sluicectld", method = the rpc name, e.g.
// "LaunchJob"). Tests use a fake that records calls.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "common/status.h"
#include "node.pb.h"

namespace grpc {
class Channel;
class Status;
}  // namespace grpc

namespace sluice {
class NodeSigner;
}

namespace sluice::ctld {

struct AgentAddress {
  std::string node;
  std::string host;
  int port = 0;
};

class AgentLink {
 public:
  virtual ~AgentLink() = default;
  virtual void Launch(const AgentAddress& to, LaunchJobRequest req,
                      std::function<void(Status)> done) = 0;
  // `done` gets the outcome (agent_outcome.h): kUnavailable never delivered, kUnknown
  // maybe delivered.
  virtual void Signal(const AgentAddress& to, SignalJobRequest req,
                      std::function<void(Status)> done) = 0;
  virtual void UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) = 0;
  // Starts the tasks of one job step on the agent (srun).
  virtual void LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                           std::function<void(Status)> done) {
    if (done) done(FailedPrecondition("job steps are not supported by this agent link"));
  }
  // Asks the node to register now (a controller that just took over); no answer needed.
  virtual void Reregister(const AgentAddress& to, const std::string& controller) {}
  // sstat: what the agent's tasks of a running step use now.
  virtual void StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                         std::function<void(Expected<AgentStepUsageReply>)> done) {
    done(FailedPrecondition("step usage is not supported by this agent link"));
  }
};

// Every call goes out at once on gRPC's callback API over the cached channel of its
// agent (one HTTP/2 connection per agent address, reused): a signal or launch to N nodes
// is N calls in flight together, one round trip, never N/threads in series, and an agent
// that does not answer holds up nothing but its own call.
class GrpcAgentLink : public AgentLink {
 public:
  GrpcAgentLink(std::string cluster_key, const Clock* clock, int timeout_ms = 10000);
  ~GrpcAgentLink() override;
  void Launch(const AgentAddress& to, LaunchJobRequest req,
              std::function<void(Status)> done) override;
  void Signal(const AgentAddress& to, SignalJobRequest req,
              std::function<void(Status)> done) override;
  void UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) override;
  void Reregister(const AgentAddress& to, const std::string& controller) override;
  void LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                   std::function<void(Status)> done) override;
  void StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                 std::function<void(Expected<AgentStepUsageReply>)> done) override;

 private:
  // Signs `req` for `method` in `to.node`'s name and starts the call; `done` gets gRPC's
  // status and the reply on a gRPC thread, over `channel` (null: the agent's cached one).
  // The destructor waits for calls in flight.
  template <typename Req, typename Reply, typename Start>
  void Call(const AgentAddress& to, const char* method, Req req, Start start,
            std::function<void(const grpc::Status&, Reply&)> done,
            std::shared_ptr<grpc::Channel> channel = nullptr);
  std::shared_ptr<grpc::Channel> ChannelFor(const AgentAddress& to);

  std::unique_ptr<NodeSigner> signer_;
  int timeout_ms_;
  std::mutex mu_;
  std::condition_variable idle_;
  int in_flight_ = 0;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
};

}  // namespace sluice::ctld
