// gRPC message size limits, set explicitly on every server and channel of Sluice (the
// library default is 4 MiB for receiving, which a maximal batch script plus its
// environment would exceed). Requests are validated field by field well below this
// (ctld/request_limits.h); this bound only stops absurd messages at the transport,
// which answers RESOURCE_EXHAUSTED "... larger than max ...".
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace sluice {

inline constexpr int kMaxRpcMessageBytes = 64 << 20;

inline grpc::ChannelArguments LimitedChannelArgs() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxRpcMessageBytes);
  args.SetMaxSendMessageSize(kMaxRpcMessageBytes);
  return args;
}

// An insecure channel with the limits above.
inline std::shared_ptr<grpc::Channel> CreateLimitedChannel(const std::string& target) {
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   LimitedChannelArgs());
}

inline void LimitServer(grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(kMaxRpcMessageBytes);
  builder->SetMaxSendMessageSize(kMaxRpcMessageBytes);
}

}  // namespace sluice
