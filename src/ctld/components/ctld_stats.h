// What `sdiag` reports about the controller since its start or the last `sdiag -r`:
// job transitions and scheduling passes. Plain counters, owned by the owner thread.
#pragma once

#include <cstdint>

#include "client.pb.h"
#include "types.pb.h"

namespace sluice::ctld {

struct JobCounters {
  int64_t submitted = 0;
  int64_t started = 0;
  int64_t completed = 0;
  int64_t cancelled = 0;
  int64_t failed = 0;  // every other end: FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...
  int64_t requeued = 0;

  // One state change of one job (nothing when `from == to`).
  void Count(JobState from, JobState to);
};

struct PassStats {
  int64_t cycles = 0;
  int64_t last_us = 0;
  int64_t max_us = 0;
  int64_t total_us = 0;
  int64_t last_depth = 0;  // pending jobs the last pass considered
  int64_t total_depth = 0;
  int64_t backfilled = 0;  // jobs started ahead of a higher-priority job still pending
  int64_t last_backfilled = 0;

  void Record(int64_t duration_us, int64_t depth, int64_t backfilled_now);
};

struct CtldStats {
  int64_t since = 0;  // unix seconds: start, or the last reset
  JobCounters jobs;
  PassStats passes;

  void Reset(int64_t now) { *this = CtldStats{now, {}, {}}; }
  void Fill(GetStatsReply* out) const;
};

}  // namespace sluice::ctld
