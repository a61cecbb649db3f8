// AcctWriter: the controller's path to the accounting store without blocking its owner
// thread on database I/O. Post() queues ops (never blocks on the database); a writer
// thread applies them in batches (one transaction per batch) on its own AcctStore and
// retries after an error (the ops are idempotent upserts, so retries are harmless).
// Query() serves sacct/sreport on a second AcctStore opened on demand (the caller's
// thread, serialized by a mutex). Flush() waits until everything posted so far is
// written (tests, shutdown).
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "acct/acct_store.h"
#include "log/log.h"

namespace sluice::acct {

// Where the controller's accounting feed posts its records (AcctWriter; tests capture).
class AcctSink {
 public:
  virtual ~AcctSink() = default;
  virtual void Post(std::vector<AcctOp> ops) = 0;
  // Records posted and not yet stored (sdiag's "DBD Agent queue size").
  virtual int64_t QueueSize() = 0;
};

class AcctWriter : public AcctSink {
 public:
  // `log` receives the store's failures (default: stderr).
  explicit AcctWriter(AcctConfig config, log::Logger log = nullptr)
      : config_(std::move(config)), log_(log ? std::move(log) : log::Stderr("sluicectld")) {}
  ~AcctWriter() override { Stop(); }
  AcctWriter(const AcctWriter&) = delete;
  AcctWriter& operator=(const AcctWriter&) = delete;

  // Opens the writer's store and starts the thread. A bad type or an unusable SQLite
  // file is an error; an unreachable PostgreSQL server is not (the thread keeps
  // retrying, records wait in the queue).
  Status Start();
  void Stop();
  void Post(std::vector<AcctOp> ops) override;
  bool Flush(int timeout_ms);
  int64_t QueueSize() override;
  Expected<AcctData> Query(const AcctWindow& window);
  // sreport's node events (AcctStore::QueryNodeEvents) on the query store.
  Expected<std::vector<NodeEventRecord>> QueryNodeEvents(int64_t start, int64_t end);

 private:
  void Loop();
  AcctConfig config_;
  log::Logger log_;
  std::unique_ptr<AcctStore> store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<AcctOp> queue_;
  uint64_t posted_ = 0, written_ = 0;
  bool stop_ = false;
  std::thread thread_;
  std::mutex query_mu_;
  std::unique_ptr<AcctStore> query_store_;
};

}  // namespace sluice::acct
