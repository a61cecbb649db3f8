#include "acct/acct_writer.h"

#include <chrono>

namespace sluice::acct {

Status AcctWriter::Start() {
  auto store = OpenAcctStore(config_);
  if (store.ok()) {
    store_ = std::move(store).value();
  } else if (store.status().code() == Code::kUnavailable &&
             config_.type == "accounting_storage/pgsql") {
    // The database server may come up later: records queue up and are retried.
    log_->warn("accounting store unavailable, will retry error={:?}", store.status().message());
  } else {
    return store.status();
  }
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void AcctWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AcctWriter::Post(std::vector<AcctOp> ops) {
  if (ops.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    posted_ += ops.size();
    for (auto& op : ops) queue_.push_back(std::move(op));
  }
  cv_.notify_all();
}

int64_t AcctWriter::QueueSize() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(posted_ - written_);
}

bool AcctWriter::Flush(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = posted_;
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return written_ >= target || stop_; });
}

void AcctWriter::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  int backoff_ms = 100;
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty() && stop_) return;
    std::vector<AcctOp> batch;
    while (!queue_.empty() && batch.size() < 500) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();
    Status st = store_ ? store_->Apply(batch) : Unavailable("no store");
    if (!st.ok()) {
      log_->warn("accounting write failed, retrying error={:?}", st.message());
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
      backoff_ms = std::min(backoff_ms * 2, 5000);
      auto reopened = OpenAcctStore(config_);  // a dropped connection: reconnect
      if (reopened.ok()) {
        store_ = std::move(reopened).value();
      } else {
        store_.reset();
      }
      lock.lock();
      for (auto it = batch.rbegin(); it != batch.rend(); ++it) queue_.push_front(std::move(*it));
      if (stop_) return;
      continue;
    }
    backoff_ms = 100;
    lock.lock();
    written_ += batch.size();
    cv_.notify_all();
  }
}

Expected<AcctData> AcctWriter::Query(const AcctWindow& window) {
  std::lock_guard<std::mutex> lock(query_mu_);
  if (!query_store_) {
    ASSIGN_OR_RETURN(query_store_, OpenAcctStore(config_));
  }
  auto r = query_store_->Query(window);
  if (!r.ok()) query_store_.reset();  // reconnect next time
  return r;
}

}  // namespace sluice::acct

namespace sluice::acct {

Expected<std::vector<NodeEventRecord>> AcctWriter::QueryNodeEvents(int64_t start, int64_t end) {
  std::lock_guard<std::mutex> lock(query_mu_);
  if (!query_store_) {
    ASSIGN_OR_RETURN(query_store_, OpenAcctStore(config_));
  }
  auto r = query_store_->QueryNodeEvents(start, end);
  if (!r.ok()) query_store_.reset();  // reconnect next time
  return r;
}

}  // namespace sluice::acct
