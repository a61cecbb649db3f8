#include "ctld/runtime/leadership.h"

#include <chrono>

#include "common/clock.h"

namespace sluice::ctld {

Leadership::Leadership(std::string conn, std::string holder, std::string address, int64_t ttl_ms,
                       log::Logger log)
    : conn_(std::move(conn)),
      holder_(std::move(holder)),
      address_(std::move(address)),
      ttl_ms_(ttl_ms),
      log_(std::move(log)) {}

Leadership::~Leadership() { StopThreads(); }

Expected<std::optional<int64_t>> Leadership::TryLead() {
  if (!lease_) {
    auto lease = storage::PgLease::Open(conn_);
    if (!lease.ok()) return lease.status();
    lease_ = std::move(*lease);
  }
  const int64_t start = RealClock::MonotonicMs();
  ASSIGN_OR_RETURN(std::optional<int64_t> epoch, lease_->TryAcquire(holder_, address_, ttl_ms_));
  if (epoch) {
    epoch_ = *epoch;
    deadline_ms_ = start + ttl_ms_;
    log_->info("leading controller={} epoch={} lease_ms={}", holder_, epoch_, ttl_ms_);
    return epoch;
  }
  auto cur = lease_->Current();
  if (cur.ok() && cur->holder != last_leader_) {
    last_leader_ = cur->holder;
    log_->info("standing by controller={} leader={} leader_address={} epoch={}", holder_,
               cur->holder, cur->address, cur->epoch);
  }
  return epoch;
}

void Leadership::KeepLeading(std::function<void(const std::string& why)> on_lost) {
  on_lost_ = std::move(on_lost);
  renewer_ = std::thread([this] { RenewLoop(); });
  watchdog_ = std::thread([this] { WatchLoop(); });
}

void Leadership::RenewLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(ttl_ms_ / 4), [this] { return stop_; })) {
    lock.unlock();
    const int64_t start = RealClock::MonotonicMs();
    auto renewed = lease_->Renew(epoch_, ttl_ms_);
    if (renewed.ok() && *renewed) {
      deadline_ms_ = start + ttl_ms_;
    } else if (renewed.ok()) {
      Lost("the lease moved to another controller");
    } else {
      log_->warn("cannot renew the controller lease epoch={} error={:?}", epoch_,
                 renewed.status().message());
    }
    lock.lock();
  }
}

void Leadership::WatchLoop() {
  // A tenth of the lease is kept in hand: this controller stops well before any standby
  // may start.
  const int64_t margin = ttl_ms_ / 10;
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return stop_; })) {
    if (RealClock::MonotonicMs() >= deadline_ms_.load() - margin) {
      lock.unlock();
      Lost("no lease renewal succeeded for " + std::to_string(ttl_ms_ - margin) + " ms");
      lock.lock();
    }
  }
}

void Leadership::Lost(const std::string& why) {
  if (lost_.exchange(true)) return;
  log_->critical("lost the controller lease controller={} epoch={} reason={:?}", holder_, epoch_,
                 why);
  if (on_lost_) on_lost_(why);
}

void Leadership::StopThreads() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (watchdog_.joinable()) watchdog_.join();
}

void Leadership::Release() {
  StopThreads();
  if (!lease_ || epoch_ == 0 || lost_) return;
  if (Status st = lease_->Release(epoch_); !st.ok()) {
    log_->warn("cannot release the controller lease error={:?}", st.message());
    return;
  }
  log_->info("released the controller lease epoch={}", epoch_);
}

}  // namespace sluice::ctld
