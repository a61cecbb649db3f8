// AgentLink: how the controller talks to node agents (proto AgentApi). Calls never
// block the caller: they are queued and sent by a small dispatcher pool; `done`
// callbacks run on a dispatcher thread (the controller re-posts them to its owner
// thread). GrpcAgentLink caches one channel per agent address and signs every request
// with the cluster key (NodeSigner, sender "sluicectld", method = the rpc name, e.g.
// "LaunchJob"). Tests use a fake that records calls.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "node.pb.h"

namespace grpc {
class Channel;
}

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
  // sstat: what the agent's tasks of a running step use now.
  virtual void StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                         std::function<void(Expected<AgentStepUsageReply>)> done) {
    done(FailedPrecondition("step usage is not supported by this agent link"));
  }
};

class GrpcAgentLink : public AgentLink {
 public:
  GrpcAgentLink(std::string cluster_key, const Clock* clock, int threads = 4,
                int timeout_ms = 10000);
  ~GrpcAgentLink() override;
  void Launch(const AgentAddress& to, LaunchJobRequest req,
              std::function<void(Status)> done) override;
  void Signal(const AgentAddress& to, SignalJobRequest req,
              std::function<void(Status)> done) override;
  void UpdateLimit(const AgentAddress& to, UpdateJobLimitRequest req) override;
  void LaunchTasks(const AgentAddress& to, LaunchTasksRequest req,
                   std::function<void(Status)> done) override;
  void StepUsage(const AgentAddress& to, AgentStepUsageRequest req,
                 std::function<void(Expected<AgentStepUsageReply>)> done) override;

 private:
  void Post(std::function<void()> task);
  void Worker();
  std::shared_ptr<grpc::Channel> ChannelFor(const AgentAddress& to);

  std::unique_ptr<NodeSigner> signer_;
  int timeout_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::thread> workers_;
};

}  // namespace sluice::ctld
