// Scheduler selection from slurm.conf: SchedulerType=sched/backfill (default: EASY
// backfill) or sched/builtin (FIFO); SchedulerParameters=bf_max_job_test=N,
// bf_window=MINUTES,bf_resolution=SECONDS,bf_conservative (Sluice: reservations for
// the first bf_max_job_test jobs instead of the head job only).
#pragma once

#include "common/config.h"
#include "common/status.h"
#include "sched/scheduler.h"

namespace sluice::ctld {

Expected<sched::SchedulerConfig> SchedulerConfigFrom(const Config& config);

}  // namespace sluice::ctld
