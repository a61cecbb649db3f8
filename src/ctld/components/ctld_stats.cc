#include "ctld/components/ctld_stats.h"

#include <algorithm>

namespace sluice::ctld {

void JobCounters::Count(JobState from, JobState to) {
  if (from == to) return;
  switch (to) {
    case JOB_RUNNING:
      if (from == JOB_PENDING) ++started;
      return;
    case JOB_PENDING:
      if (from != JOB_PENDING) ++requeued;
      return;
    case JOB_COMPLETED:
      ++completed;
      return;
    case JOB_CANCELLED:
      ++cancelled;
      return;
    case JOB_FAILED:
    case JOB_TIMEOUT:
    case JOB_NODE_FAIL:
    case JOB_OUT_OF_MEMORY:
    case JOB_PREEMPTED:
      ++failed;
      return;
    default:
      return;
  }
}

void PassStats::Record(int64_t duration_us, int64_t depth, int64_t backfilled_now) {
  ++cycles;
  last_us = duration_us;
  max_us = std::max(max_us, duration_us);
  total_us += duration_us;
  last_depth = depth;
  total_depth += depth;
  last_backfilled = backfilled_now;
  backfilled += backfilled_now;
}

void CtldStats::Reset(int64_t now) {
  since = now;
  passes = PassStats{};
  jobs_at_reset_ = jobs;
}

void CtldStats::Fill(GetStatsReply* out) const {
  const JobCounters& z = jobs_at_reset_;
  out->set_data_since(since);
  out->set_jobs_submitted(jobs.submitted - z.submitted);
  out->set_jobs_started(jobs.started - z.started);
  out->set_jobs_completed(jobs.completed - z.completed);
  out->set_jobs_cancelled(jobs.cancelled - z.cancelled);
  out->set_jobs_failed(jobs.failed - z.failed);
  out->set_jobs_requeued(jobs.requeued - z.requeued);
  out->set_sched_cycles(passes.cycles);
  out->set_sched_last_us(passes.last_us);
  out->set_sched_max_us(passes.max_us);
  out->set_sched_total_us(passes.total_us);
  out->set_sched_last_depth(passes.last_depth);
  out->set_sched_total_depth(passes.total_depth);
  out->set_backfilled_jobs(passes.backfilled);
  out->set_last_backfilled_jobs(passes.last_backfilled);
}

}  // namespace sluice::ctld
