#include "ctld/runtime/owner_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace sluice::ctld {

OwnerLoop::OwnerLoop(Controller* controller, const Clock* clock, int64_t tick_ms)
    : controller_(controller), clock_(clock), tick_ms_(tick_ms) {
  controller_->SetPoster([this](std::function<void()> fn) {
    Post([fn = std::move(fn)]() -> Ack {
      fn();
      return nullptr;
    });
  });
}

OwnerLoop::~OwnerLoop() { Stop(); }

void OwnerLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void OwnerLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OwnerLoop::Post(std::function<Ack()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void OwnerLoop::RunBatch(std::deque<std::function<Ack()>>* batch) {
  std::vector<Ack> acks;
  acks.reserve(batch->size());
  for (auto& fn : *batch) {
    if (Ack a = fn()) acks.push_back(std::move(a));
  }
  batch->clear();
  // Replies first, then the agent messages the batch queued (a job's signals go out
  // only after the client that caused them, e.g. `scontrol requeue` from inside the job,
  // has its answer).
  Status st = controller_->Commit(/*send_outbox=*/false);
  if (!st.ok()) controller_->logger()->error("commit failed error={:?}", st.message());
  for (auto& a : acks) a(st);
  if (st.ok()) controller_->SendOutbox();
}

void OwnerLoop::Run() {
  int64_t next_tick = clock_->NowMs() + tick_ms_;
  std::deque<std::function<Ack()>> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      int64_t now = clock_->NowMs();
      int64_t wake = std::min(next_tick, controller_->NextWakeMs(now));
      cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(0, wake - now)),
                   [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      batch.swap(queue_);
    }
    if (!batch.empty()) RunBatch(&batch);
    int64_t now = clock_->NowMs();
    bool dirty = false;
    if (now >= next_tick) {
      controller_->Tick();
      next_tick = now + tick_ms_;
      dirty = true;
    }
    if (controller_->ScheduleDue(now)) dirty |= controller_->SchedulePass();
    if (dirty || controller_->HasUncommitted()) {
      Status st = controller_->Commit();
      if (!st.ok()) controller_->logger()->error("commit failed error={:?}", st.message());
    }
  }
}

}  // namespace sluice::ctld
