#include "cli/keepalive.h"

#include <chrono>

namespace sluice {

ClientKeepalive::ClientKeepalive(ClientApiInterface* api, int64_t job_id, int period_ms)
    : api_(api), job_id_(job_id), period_ms_(period_ms) {
  thread_ = std::thread([this] { Loop(); });
}

ClientKeepalive::~ClientKeepalive() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ClientKeepalive::AddStep(int step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  steps_.insert(step_id);
}

void ClientKeepalive::EndStep(int step_id) { EndStep(step_id, AcctStepEnd()); }

void ClientKeepalive::EndStep(int step_id, const AcctStepEnd& how) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    steps_.erase(step_id);
  }
  KeepaliveRequest req;
  req.set_job_id(job_id_);
  req.add_ended_step_ids(step_id);
  if (how.step_id() == step_id) *req.add_acct_step_ends() = how;
  (void)api_->Keepalive(req);
}

void ClientKeepalive::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  // The first beat one period in: the lease is several periods long, and at start the
  // step launch has the connection to itself.
  while (!cv_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; })) {
    KeepaliveRequest req;
    req.set_job_id(job_id_);
    for (int s : steps_) req.add_step_ids(s);
    lock.unlock();
    (void)api_->Keepalive(req);
    lock.lock();
  }
}

}  // namespace sluice
