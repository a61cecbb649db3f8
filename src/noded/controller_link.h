// ControllerLink: how the agent talks to the controller (NodeApi). The interface lets
// the Agent be tested without a controller; GrpcControllerLink is the real one: a
// NodeApi stub over TCP that signs every request (NodeSigner, sender = node name,
// method = "RegisterNode" / "Heartbeat" / "JobEnded" / "Relay") with a per-call deadline.
// With several controllers (SlurmctldHost lines: a leader and its standbys, which do not
// listen) a call that cannot connect goes on to the next one, and the link stays with the
// one that answered. Registration, heartbeats and end reports (safe to repeat) also go on
// after a timeout: a leader that was paused or cut off does not hold the node; relayed
// client calls do not (the client decides).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "node.grpc.pb.h"
#include "rpc/grpc_limits.h"
#include "rpc/node_auth.h"

namespace sluice {

class ControllerLink {
 public:
  virtual ~ControllerLink() = default;
  virtual Expected<RegisterNodeReply> Register(RegisterNodeRequest req) = 0;
  virtual Expected<HeartbeatReply> Heartbeat(HeartbeatRequest req) = 0;
  virtual Status JobEnded(JobEndedRequest req) = 0;
  // The controller named `name` (SlurmctldHost) leads: calls go to it first from now on.
  virtual void Prefer(const std::string& name) {}
  // A client's call relayed for it (client_relay.h); the call's own gRPC status comes
  // back in the reply's code/error. Safe to call from any thread.
  virtual RelayReply Relay(RelayRequest req) {
    RelayReply r;
    r.set_code(12);  // UNIMPLEMENTED
    r.set_error("relay is not supported");
    return r;
  }
};

// A failed call that shows no controller leading at its address (the connection was
// refused, or a standby answered): it is down, restarting or standing by, and cannot
// declare this node DOWN meanwhile. The
// refusal may be up to kRefusalAgeMs old (the channel's last attempt, rpc/grpc_limits.h).
bool ControllerNotListening(const Status& st);
inline constexpr int64_t kRefusalAgeMs = 2 * kMaxReconnectBackoffMs;

class GrpcControllerLink : public ControllerLink {
 public:
  // `targets` are "host:port", the primary first; `names` their SlurmctldHost names.
  GrpcControllerLink(const std::vector<std::string>& targets, std::vector<std::string> names,
                     NodeSigner signer, int timeout_ms = 5000);
  void Prefer(const std::string& name) override;
  Expected<RegisterNodeReply> Register(RegisterNodeRequest req) override;
  Expected<HeartbeatReply> Heartbeat(HeartbeatRequest req) override;
  Status JobEnded(JobEndedRequest req) override;
  RelayReply Relay(RelayRequest req) override;

 private:
  template <typename Req, typename Reply, typename Fn>
  Expected<Reply> Call(const char* method, Req* req, Fn fn);
  // Calls `fn(stub, ctx)` on each controller from the last one that answered, until one
  // connects (`past_timeouts`: until one answers).
  template <typename Fn>
  grpc::Status EachController(int timeout_ms, bool past_timeouts, Fn fn);
  std::vector<std::unique_ptr<NodeApi::Stub>> stubs_;
  std::atomic<size_t> current_{0};
  std::vector<std::string> names_;
  NodeSigner signer_;
  int timeout_ms_;
};

}  // namespace sluice
