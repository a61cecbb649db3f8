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
