// AgentRelayClient: srun's ClientApiInterface inside an allocation, through the client
// relay of its node agent (noded/client_relay.h; the socket is $SLUICE_RELAY_SOCKET). No
// gRPC channel and no credential round trip of its own: the agent forwards each call on
// its warm, signed channel and the controller takes the caller from the agent's
// SO_PEERCRED. Only LaunchStep and Keepalive (what a step needs); the other calls answer
// FailedPrecondition. Errors read as ClusterClient's (the same gRPC statuses come back).
// A connection the agent closed (it restarted) is reopened before a call is sent; a call
// is never resent once sent. Calls from two threads (srun's keepalive) take turns.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "client/api.h"
#include "common/step_io.h"
#include "node.pb.h"

namespace sluice {

class AgentRelayClient : public ClientApiInterface {
 public:
  static Expected<std::unique_ptr<AgentRelayClient>> Connect(const std::string& path);
  ~AgentRelayClient() override;

  Expected<StepReply> LaunchStep(const StepRequest& req) override;
  Expected<KeepaliveReply> Keepalive(const KeepaliveRequest& req) override;

  Expected<SubmitReply> SubmitJob(const SubmitRequest&) override { return NotRelayed(); }
  Expected<GetJobsReply> GetJobs(const GetJobsRequest&) override { return NotRelayed(); }
  Expected<CancelReply> CancelJobs(const CancelRequest&) override { return NotRelayed(); }
  Expected<GetNodesReply> GetNodes(const GetNodesRequest&) override { return NotRelayed(); }
  Expected<GetPartitionsReply> GetPartitions(const GetPartitionsRequest&) override {
    return NotRelayed();
  }
  Expected<UpdateNodeReply> UpdateNode(const UpdateNodeRequest&) override { return NotRelayed(); }
  Expected<UpdateJobReply> UpdateJob(const UpdateJobRequest&) override { return NotRelayed(); }
  Expected<GetConfigReply> GetConfig(const GetConfigRequest&) override { return NotRelayed(); }

 private:
  AgentRelayClient(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  static Status NotRelayed() {
    return FailedPrecondition("not available through the node agent's relay");
  }
  Expected<RelayReply> Call(const RelayRequest& req);

  std::string path_;
  std::mutex mu_;
  int fd_;
  FrameReader reader_;
};

}  // namespace sluice
