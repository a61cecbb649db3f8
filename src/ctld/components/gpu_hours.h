// GpuHoursWindow: GPU-hours used per account over the last 24 hours (the dashboard's
// chart), in 10-minute buckets. Charge(now, charges) adds each job's GPUs x seconds run
// between the previous charge and `now` (the same charges the fair-share ledger gets,
// sched/usage_ledger.h), split over the buckets they fall in; buckets older than the
// window are dropped. The first charge looks back the whole window, so after a restart
// the running jobs' last 24 hours count (jobs that ended before it are not known).
// Pure: time comes in as `now`. Owner-thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "sched/usage_ledger.h"

namespace sluice::ctld {

class GpuHoursWindow {
 public:
  static constexpr int64_t kBucketS = 600;
  static constexpr int64_t kWindowS = 24 * 3600;

  void Charge(int64_t now, const std::vector<sched::UsageCharge>& charges);
  // GPU-hours by account within the window ending at the last charge (to bucket
  // granularity); accounts that used none are left out.
  std::map<std::string, double> HoursByAccount() const;

 private:
  struct Bucket {
    int64_t start = 0;
    std::map<std::string, double> gpu_s;  // by account
  };
  void Add(const std::string& account, int64_t from, int64_t to, int64_t gpus);
  Bucket& BucketAt(int64_t t);

  int64_t time_ = -1;           // last charge (-1: never)
  std::deque<Bucket> buckets_;  // ascending start
};

}  // namespace sluice::ctld
