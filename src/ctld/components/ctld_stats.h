// What the controller counts about itself: job transitions and scheduling passes for
// `sdiag` (since its start or the last `sdiag -r`), and the process metrics /metrics
// serves (since its start, never reset: pass and commit histograms, node failures,
// preemptions). Plain values, owned by the owner thread.
#pragma once

#include <cstdint>

#include "common/histogram.h"

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

// Since the controller started (Prometheus counters and histograms: never reset).
struct ProcessMetrics {
  Histogram pass_seconds{Histogram::Exponential(0.0005, 2, 14)};  // 0.5 ms .. 4 s
  int64_t pass_jobs_considered = 0;
  int64_t pass_backfilled = 0;
  Histogram commit_seconds{Histogram::Exponential(0.0001, 2, 14)};  // 0.1 ms .. 0.8 s
  Histogram commit_records{Histogram::Exponential(1, 4, 8)};        // 1 .. 16384 rows
  int64_t node_failures = 0;  // nodes set DOWN because they stopped answering
  int64_t preemptions = 0;    // jobs preempted (signalled to make room)
};

struct CtldStats {
  int64_t since = 0;  // unix seconds: start, or the last reset
  JobCounters jobs;   // since the start
  PassStats passes;   // since the last reset
  ProcessMetrics process;

  // sdiag -r: the job counters it reports start again from zero (jobs keeps counting).
  void Reset(int64_t now);
  void Fill(GetStatsReply* out) const;

 private:
  JobCounters jobs_at_reset_;
};

}  // namespace sluice::ctld
