// NodeLease: how a node fences itself. The controller declares a node DOWN (and requeues
// its jobs elsewhere) once it has heard nothing from it for SlurmdTimeout, counted from
// when it handled the node's last heartbeat, which is never before the agent sent it. So
// the agent writes <spool>/node.lease after each answered registration or heartbeat:
// "valid until send time + SlurmdTimeout - margin" (wall-clock ms, as the controller
// counts). Every job and step supervisor on the node reads it (BatchLaunch/StepLaunch
// .fence_lease) and SIGKILLs its job once it has expired: a node cut off from the
// controller, or whose agent hangs or is dead, has no job running by the time the
// controller could start the same job elsewhere.
// A controller that provably is not listening (connection refused: it is down or
// restarting) counts as contact: a restarted controller counts SlurmdTimeout from its
// own start, so it cannot declare the node down earlier than that.
// The lease only moves forward; no file (or an unreadable one) never fences.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace sluice {

// The margin kept before the controller's SlurmdTimeout: a tenth of it, in [0.5 s, 30 s].
int64_t FenceMarginMs(int64_t slurmd_timeout_ms);
// How long a renewal at `sent_ms` lasts: sent_ms + timeout - margin.
int64_t LeaseUntilMs(int64_t sent_ms, int64_t slurmd_timeout_ms);

std::string NodeLeasePath(const std::string& spool_dir);
// Writes max(current, until_ms) (atomic rename; not fsync'ed: a node that reboots has no
// job to fence).
Status RenewNodeLease(const std::string& path, int64_t until_ms);
// The lease's end; nullopt when there is no readable lease.
std::optional<int64_t> ReadNodeLease(const std::string& path);

// What a supervisor keeps to check the lease cheaply: the file is read again only once
// the end it last read has passed.
class LeaseWatch {
 public:
  explicit LeaseWatch(std::string path) : path_(std::move(path)) {}
  // True once the lease has ended at `now_ms` (never without a path or a lease).
  bool Expired(int64_t now_ms);
  // The lease's end as last read (nullopt: none); for poll timeouts.
  std::optional<int64_t> until_ms() const { return until_ms_; }

 private:
  std::string path_;
  std::optional<int64_t> until_ms_;
};

}  // namespace sluice
