// Scheduler selection from slurm.conf: SchedulerType=sched/backfill (default: EASY
// backfill) or sched/builtin (FIFO); SchedulerParameters=bf_max_job_test=N,
// bf_window=MINUTES,bf_resolution=SECONDS,bf_conservative (Sluice: reservations for
// the first bf_max_job_test jobs instead of the head job only), bf_order=priority|sjbf|
// wfp3|unicep|f1|sgtf (the order backfill candidates are tried in; sched/backfill_order.h),
// bf_starvation_factor=K (candidates whose wait reached K x their run time are tried
// first), bf_predict=user2|none (plan with user-history runtime predictions,
// sched/runtime_predictor.h), queue_order=priority|sjbf|wfp3|unicep|f1|sgtf (the order the
// whole queue is taken in, within priority classes; sched/backfill_order.h QueueOrder).
// Unknown bf_order / queue_order / bf_predict values are errors.
#pragma once

#include "common/config.h"
#include "common/status.h"
#include "sched/scheduler.h"

namespace sluice::ctld {

Expected<sched::SchedulerConfig> SchedulerConfigFrom(const Config& config);
// SchedulerConfigFrom, or the defaults when the parameters do not parse (the daemon
// refuses those before it gets here).
sched::SchedulerConfig SchedulerKnobsOf(const Config& config);

}  // namespace sluice::ctld
