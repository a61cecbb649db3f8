#include "rpc/rpc_stats.h"

#include <chrono>

namespace sluice {

void RpcStats::Record(const std::string& method, int64_t duration_us) {
  const size_t slash = method.rfind('/');
  const std::string name = slash == std::string::npos ? method : method.substr(slash + 1);
  std::lock_guard<std::mutex> lock(mu_);
  Method& m = methods_[name];
  ++m.count;
  m.total_us += duration_us;
}

std::map<std::string, RpcStats::Method> RpcStats::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return methods_;
}

void RpcStats::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  methods_.clear();
}

namespace {

using grpc::experimental::InterceptionHookPoints;

// One per call: notes the arrival, records the duration when the status is sent.
class Interceptor final : public grpc::experimental::Interceptor {
 public:
  Interceptor(RpcStats* stats, std::string method)
      : stats_(stats), method_(std::move(method)), start_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start_);
      stats_->Record(method_, us.count());
    }
    methods->Proceed();
  }

 private:
  RpcStats* stats_;
  std::string method_;
  std::chrono::steady_clock::time_point start_;
};

class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit Factory(RpcStats* stats) : stats_(stats) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new Interceptor(stats_, info->method());
  }

 private:
  RpcStats* stats_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> RpcStatsInterceptor(
    RpcStats* stats) {
  return std::make_unique<Factory>(stats);
}

}  // namespace sluice
