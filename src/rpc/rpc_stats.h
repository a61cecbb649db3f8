// RpcStats: how many calls each gRPC method of a server got and how long they took
// (from the request's arrival to its status), for sdiag. Thread-safe; filled by a
// server interceptor, so every method is counted, the callback ones too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/support/server_interceptor.h>

namespace sluice {

class RpcStats {
 public:
  struct Method {
    int64_t count = 0;
    int64_t total_us = 0;
  };

  void Record(const std::string& method, int64_t duration_us);
  // Method name without its service ("/sluice.ClientApi/SubmitJob" -> "SubmitJob").
  std::map<std::string, Method> Snapshot() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::map<std::string, Method> methods_;
};

// ServerBuilder::experimental().SetInterceptorCreators(...) takes these.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> RpcStatsInterceptor(
    RpcStats* stats);

}  // namespace sluice
