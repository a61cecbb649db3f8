#include "rpc/rpc_stats.h"

#include "common/clock.h"

namespace sluice {

void RpcStats::Record(const std::string& method, int64_t duration_us) {
  const size_t slash = method.rfind('/');
  const std::string name = slash == std::string::npos ? method : method.substr(slash + 1);
  std::lock_guard<std::mutex> lock(mu_);
  Method& m = methods_[name];
  ++m.count;
  m.total_us += duration_us;
  m.seconds.Observe(duration_us / 1e6);
}

std::map<std::string, RpcStats::Method> RpcStats::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, Method> out;
  for (const auto& [name, m] : methods_) {
    auto it = at_reset_.find(name);
    const int64_t count = m.count - (it == at_reset_.end() ? 0 : it->second.first);
    if (count == 0) continue;
    Method& o = out[name];
    o.count = count;
    o.total_us = m.total_us - (it == at_reset_.end() ? 0 : it->second.second);
  }
  return out;
}

std::map<std::string, RpcStats::Method> RpcStats::Lifetime() const {
  std::lock_guard<std::mutex> lock(mu_);
  return methods_;
}

void RpcStats::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  at_reset_.clear();
  for (const auto& [name, m] : methods_) at_reset_[name] = {m.count, m.total_us};
}

namespace {

using grpc::experimental::InterceptionHookPoints;

// One per call: notes the arrival, records the duration when the status is sent.
class Interceptor final : public grpc::experimental::Interceptor {
 public:
  Interceptor(RpcStats* stats, std::string method)
      : stats_(stats), method_(std::move(method)), start_us_(RealClock::MonotonicUs()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      stats_->Record(method_, RealClock::MonotonicUs() - start_us_);
    }
    methods->Proceed();
  }

 private:
  RpcStats* stats_;
  std::string method_;
  int64_t start_us_;
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
