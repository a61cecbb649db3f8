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
  writer_ = std::thread([this] { WriteLoop(); });
  thread_ = std::thread([this] { Run(); });
}

void OwnerLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (writer_.joinable()) writer_.join();
}

void OwnerLoop::Post(std::function<Ack()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void OwnerLoop::MaybeStartCommit(bool* want_commit) {
  // After a failed write, what it put back waits for new calls or the next tick (as the
  // store refuses, retrying at once would only spin).
  const bool due =
      *want_commit || !acks_.empty() || (!write_failed_ && controller_->HasUncommitted());
  if (in_flight_ || !due) return;
  StartCommit();
  *want_commit = false;
}

void OwnerLoop::StartCommit() {
  Batch b{controller_->PrepareCommit(), std::move(acks_)};
  acks_.clear();
  if (!b.commit.NeedsWrite()) {
    Finish(std::move(b), Status::Ok());
    return;
  }
  in_flight_ = std::move(b);
  {
    std::lock_guard<std::mutex> lock(mu_);
    to_write_ = &in_flight_->commit;
  }
  writer_cv_.notify_one();
}

void OwnerLoop::Finish(Batch b, const Status& written) {
  write_failed_ = !written.ok();
  if (write_failed_) controller_->logger()->error("commit failed error={:?}", written.message());
  std::vector<std::function<void()>> messages =
      controller_->FinishCommit(std::move(b.commit), written);
  // Replies first, then the agent messages the batch queued (a job's signals go out
  // only after the client that caused them, e.g. `scontrol requeue` from inside the job,
  // has its answer).
  for (auto& a : b.acks) a(written);
  for (auto& send : messages) send();
}

void OwnerLoop::WaitForWriter() {
  if (!in_flight_) return;
  Status written;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return written_.has_value(); });
    written = std::move(*written_);
    written_.reset();
  }
  Batch b = std::move(*in_flight_);
  in_flight_.reset();
  Finish(std::move(b), written);
}

void OwnerLoop::WriteLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    writer_cv_.wait(lock, [this] { return writer_stop_ || to_write_ != nullptr; });
    if (to_write_ == nullptr) return;
    Controller::PreparedCommit* commit = to_write_;
    lock.unlock();
    Status st = controller_->WriteCommit(commit);
    lock.lock();
    to_write_ = nullptr;
    written_ = std::move(st);
    cv_.notify_one();
  }
}

void OwnerLoop::Run() {
  int64_t next_tick = clock_->NowMs() + tick_ms_;
  std::deque<std::function<Ack()>> batch;
  bool want_commit = false;  // a tick or pass ran since the last commit was prepared
  for (;;) {
    bool stop = false;
    bool written = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      int64_t now = clock_->NowMs();
      int64_t wake = std::min(next_tick, controller_->NextWakeMs(now));
      cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(0, wake - now)),
                   [this] { return stop_ || !queue_.empty() || written_.has_value(); });
      stop = stop_;
      written = written_.has_value();
      batch.swap(queue_);
    }
    if (written) WaitForWriter();  // it is done: releases its acks and messages
    if (stop) break;
    for (auto& fn : batch) {
      if (Ack a = fn()) acks_.push_back(std::move(a));
    }
    batch.clear();
    // The closures' answers are written first; the tick and the pass run while they are.
    MaybeStartCommit(&want_commit);
    int64_t now = clock_->NowMs();
    if (now >= next_tick) {
      controller_->Tick();
      next_tick = now + tick_ms_;
      want_commit = true;
    }
    if (controller_->ScheduleDue(now)) want_commit |= controller_->SchedulePass();
    MaybeStartCommit(&want_commit);
  }
  // Stopping: the batch in flight, then what ran since, are written before the end.
  WaitForWriter();
  if (!acks_.empty() || controller_->HasUncommitted()) {
    StartCommit();
    WaitForWriter();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    writer_stop_ = true;
  }
  writer_cv_.notify_one();
}

}  // namespace sluice::ctld
