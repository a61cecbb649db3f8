#include "noded/health_check.h"

#include <cstdio>

#include "common/config.h"
#include "node_common/hook_runner.h"

namespace sluice {

HealthCheck::HealthCheck(HealthCheckOptions options) : options_(std::move(options)) {}

HealthCheck::~HealthCheck() { Stop(); }

bool HealthCheck::StateMatches(int alloc_cpus) const {
  unsigned s = options_.node_state;
  if (alloc_cpus <= 0) return s & Config::kHealthIdle;
  if (alloc_cpus >= options_.cpus) return s & Config::kHealthAlloc;
  return s & Config::kHealthMixed;
}

void HealthCheck::RunNow() {
  if (!enabled()) return;
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "SLURMD_NODENAME=" + options_.node_name, "SLURM_CONF=" + options_.conf_path,
      "SLUICE_CONF=" + options_.conf_path};
  HookResult r = RunHook(options_.program, env, options_.timeout_ms);
  std::lock_guard<std::mutex> lock(mu_);
  current_.set_seq(current_.seq() + 1);
  current_.set_failed(!r.ok());
  if (r.ok()) {
    current_.set_reason(last_failure_);
  } else {
    std::string reason = r.Reason("HealthCheck");
    last_failure_ = reason;
    current_.set_reason(reason);
    std::fprintf(stderr, "sluiced: health check failed: %s\n", reason.c_str());
  }
}

void HealthCheck::Start(std::function<void()> on_change) {
  if (!enabled() || options_.interval_s <= 0) return;
  on_change_ = std::move(on_change);
  thread_ = std::thread([this] { Loop(); });
}

void HealthCheck::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

NodeHealth HealthCheck::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

void HealthCheck::Loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_for(lock, std::chrono::seconds(options_.interval_s), [&] { return stop_; })) {
        return;
      }
    }
    if (!StateMatches(alloc_cpus_)) continue;
    RunNow();
    if (on_change_) on_change_();
  }
}

}  // namespace sluice
