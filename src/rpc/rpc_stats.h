// RpcStats: how many calls each gRPC method of a server got and how long they took
// (from the request's arrival to its status): since the last reset for sdiag, since the
// start (with a latency histogram) for /metrics. Thread-safe; filled by a server
// interceptor, so every method is counted, the callback ones too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/support/server_interceptor.h>

#include "common/histogram.h"

namespace sluice {

class RpcStats {
 public:
  struct Method {
    int64_t count = 0;
    int64_t total_us = 0;
    Histogram seconds{Histogram::Exponential(0.0001, 2, 16)};  // 0.1 ms .. 3.3 s
  };

  void Record(const std::string& method, int64_t duration_us);
  // Since the last Reset (sdiag), by method name without its service
  // ("/sluice.ClientApi/SubmitJob" -> "SubmitJob"); no histogram.
  std::map<std::string, Method> Snapshot() const;
  // Since the start, with the histograms (Reset does not touch them).
  std::map<std::string, Method> Lifetime() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::map<std::string, Method> methods_;
  std::map<std::string, std::pair<int64_t, int64_t>> at_reset_;  // count, total_us
};

// ServerBuilder::experimental().SetInterceptorCreators(...) takes these.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> RpcStatsInterceptor(
    RpcStats* stats);

}  // namespace sluice
