// Leadership: with StateStorageType=state/pgsql, which of the controllers (SlurmctldHost
// lines) leads, through the lease row in the shared database (storage/pg_lease.h).
//
// A controller starts as a standby: TryLead() every second, nothing else -- it answers
// every call "standby" (standby_server.h), so clients and agents go on to the next
// SlurmctldHost. Once it holds the
// lease it loads the state, fences its store with the epoch and serves; KeepLeading()
// renews the lease every ttl/4 on a thread of its own, and a watchdog steps down the moment
// this controller can no longer be sure it leads: a renewal refused (the lease moved on), or
// none succeeded for a whole ttl (database unreachable, process paused). `on_lost` then
// runs once (the daemon exits; restarted, it comes back as a standby). Release() hands the
// lease back on a clean shutdown, so a standby takes over at its next try.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/status.h"
#include "log/log.h"
#include "storage/pg_lease.h"

namespace sluice::ctld {

class Leadership {
 public:
  // `holder`: this controller's SlurmctldHost name; `address`: where it serves clients.
  Leadership(std::string conn, std::string holder, std::string address, int64_t ttl_ms,
             log::Logger log);
  ~Leadership();
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  // One try for the lease: the epoch when this controller now leads, nullopt while another
  // does (logged when the leader changes), an error when the database cannot be reached.
  Expected<std::optional<int64_t>> TryLead();
  // Renews the lease from now on; `on_lost(why)` runs once, on the watchdog's thread.
  void KeepLeading(std::function<void(const std::string& why)> on_lost);
  // Stops renewing and expires the lease now.
  void Release();
  int64_t epoch() const { return epoch_; }
  const std::string& holder() const { return holder_; }
  int64_t ttl_ms() const { return ttl_ms_; }

 private:
  void RenewLoop();
  void WatchLoop();
  void Lost(const std::string& why);
  void StopThreads();

  const std::string conn_;
  const std::string holder_;
  const std::string address_;
  const int64_t ttl_ms_;
  log::Logger log_;
  std::unique_ptr<storage::PgLease> lease_;
  int64_t epoch_ = 0;
  std::string last_leader_;  // for logging a change only
  std::function<void(const std::string&)> on_lost_;
  std::atomic<int64_t> deadline_ms_{0};  // monotonic: sure to lead until then
  std::atomic<bool> lost_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread renewer_;
  std::thread watchdog_;
};

}  // namespace sluice::ctld
