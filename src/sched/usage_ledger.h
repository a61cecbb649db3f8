// UsageLedger: what each association (account, user) has consumed, decayed over time,
// as Slurm's priority/multifactor keeps it: the input of Fair Tree fair-share
// (priority.h) and of GrpTRESMins-style limits (assoc_limits.h). Accrue(now) first
// decays every row by 2^(-elapsed / PriorityDecayHalfLife), then charges each job that
// ran since the last accrual: TRES billing x seconds x its QOS UsageFactor, and its CPU
// and GPU minutes. Pure and deterministic: time comes in as `now`; the controller feeds
// it its jobs and persists its rows, the simulator can feed it a trace's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sluice::sched {

using UsageKey = std::pair<std::string, std::string>;  // (account, user)

struct AssocUsage {
  double billing = 0;  // decayed TRES-billing-seconds
  double cpu_min = 0;  // decayed CPU minutes
  double gpu_min = 0;  // decayed GPU minutes
  bool operator==(const AssocUsage&) const = default;
};

// One job's share of an accrual: it ran from `start` until `end` (0: still running).
struct UsageCharge {
  UsageKey key;
  int64_t start = 0;
  int64_t end = 0;
  double billing_per_s = 0;  // TRES billing of its allocation
  int64_t cpus = 0;
  int64_t gpus = 0;
  double factor = 1;  // QOS UsageFactor
};

class UsageLedger {
 public:
  // Decays to `now`, then charges the part of each job's run after the last accrual. The
  // first call (or a clock that went back) only sets the time.
  void Accrue(int64_t now, int64_t half_life_s, const std::vector<UsageCharge>& charges);
  // Rows as persisted, accrued up to `time`.
  void Restore(int64_t time, std::map<UsageKey, AssocUsage> rows);

  int64_t time() const { return time_; }
  const std::map<UsageKey, AssocUsage>& rows() const { return rows_; }
  // Decayed billing of `key` (0 when it never used anything).
  double Billing(const UsageKey& key) const;
  const AssocUsage* Find(const UsageKey& key) const;

 private:
  int64_t time_ = 0;
  std::map<UsageKey, AssocUsage> rows_;
};

}  // namespace sluice::sched
