// gRPC message size limits, set explicitly on every server and channel of Sluice (the
// library default is 4 MiB for receiving, which a maximal batch script plus its
// environment would exceed). Requests are validated field by field well below this
// (rpc/request_limits.h); this bound only stops absurd messages at the transport,
// which answers RESOURCE_EXHAUSTED "... larger than max ...".
#pragma once

#include <arpa/inet.h>

#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"

namespace sluice {

inline constexpr int kMaxRpcMessageBytes = 64 << 20;
// A channel whose peer is gone tries to connect again at least this often (gRPC's default
// backoff grows to 120 s): a restarted controller hears from its agents at once, and a
// call that fails fast while the channel waits reports a connect error at most this old
// (plus gRPC's 20 % jitter).
inline constexpr int kMaxReconnectBackoffMs = 1000;

inline grpc::ChannelArguments LimitedChannelArgs() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxRpcMessageBytes);
  args.SetMaxSendMessageSize(kMaxRpcMessageBytes);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs / 2);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  return args;
}

// Debian builds abseil without NDEBUG, which leaves absl::Mutex's deadlock detector on:
// every lock gRPC takes updates a global lock graph (~2% of the controller's CPU in a
// step-launch loop under perf). Sluice's own code uses std::mutex.
inline void DisableAbslDeadlockDetection() {
  static const bool done = [] {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    return true;
  }();
  (void)done;
}

// The channel target for host:port. An IPv4 literal gets the "ipv4:" scheme, which
// skips gRPC's DNS resolver (a thread hop and a getaddrinfo per new channel).
inline std::string ChannelTarget(const std::string& host, int port) {
  in_addr addr{};
  bool literal = ::inet_pton(AF_INET, host.c_str(), &addr) == 1;
  return (literal ? "ipv4:" : "") + host + ":" + std::to_string(port);
}

// The channel targets of every controller (SlurmctldHost lines), the primary first.
inline std::vector<std::string> ControllerTargets(const Config& config) {
  std::vector<std::string> out;
  for (const auto& h : config.Controllers()) out.push_back(ChannelTarget(h.addr, config.ctld_port));
  return out;
}

// Their SlurmctldHost names, in the same order.
inline std::vector<std::string> ControllerNames(const Config& config) {
  std::vector<std::string> out;
  for (const auto& h : config.Controllers()) out.push_back(h.name);
  return out;
}

// An insecure channel with the limits above.
inline std::shared_ptr<grpc::Channel> CreateLimitedChannel(const std::string& target) {
  DisableAbslDeadlockDetection();
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   LimitedChannelArgs());
}

inline void LimitServer(grpc::ServerBuilder* builder) {
  DisableAbslDeadlockDetection();
  builder->SetMaxReceiveMessageSize(kMaxRpcMessageBytes);
  builder->SetMaxSendMessageSize(kMaxRpcMessageBytes);
}

}  // namespace sluice
