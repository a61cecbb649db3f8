// PgLease: which controller leads, decided by one row of the state database (ctld_lease:
// holder, address, epoch, expires). Times are the database server's clock, so the
// controllers' clocks need not agree.
//
//   TryAcquire  takes the lease when it is free or expired, raising the epoch by one: the
//               fencing token PgStateStore::FenceWith checks on every write;
//   Renew       extends the lease, only while the row still carries our epoch;
//   Release     expires it now (a clean shutdown or a hand-over), so a standby takes over
//               at its next try instead of waiting out the lease.
//
// A leader must act only until (its last successful Renew's start + ttl): the database's
// expiry is later than that, so it has stopped before any standby can take over -- and if
// it has not (paused past its own deadline), the fence refuses its writes.
// One connection (it comes back after it broke), one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "storage/pg_session.h"

namespace sluice::storage {

struct LeaseState {
  std::string holder;   // the SlurmctldHost name of the leader ("" when never held)
  std::string address;  // where it serves clients ("host:port")
  int64_t epoch = 0;
  bool live = false;  // not expired
};

class PgLease {
 public:
  static Expected<std::unique_ptr<PgLease>> Open(const std::string& conn);
  ~PgLease();
  PgLease(const PgLease&) = delete;
  PgLease& operator=(const PgLease&) = delete;

  // The new epoch, or nullopt while another controller holds a live lease.
  Expected<std::optional<int64_t>> TryAcquire(const std::string& holder, const std::string& address,
                                              int64_t ttl_ms);
  // false: the lease is no longer ours (taken over).
  Expected<bool> Renew(int64_t epoch, int64_t ttl_ms);
  Status Release(int64_t epoch);
  Expected<LeaseState> Current();

 private:
  explicit PgLease(const std::string& conn);
  PgSession session_;
};

}  // namespace sluice::storage
