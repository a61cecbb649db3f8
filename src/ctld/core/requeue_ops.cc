// Controller: automatic requeue after node loss or launch failure (bounded by
// MaxBatchRequeue), RequeueExit/RequeueExitHold, holds after requeue, signal delivery
// scopes (scancel -s [--batch|--full]) and the --signal warning before the time limit.
#include <fmt/format.h>

#include "common/signal_spec.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

void Controller::AutoRequeueOrFail(JobInfo* job, const std::string& why,
                                   const std::string& fail_reason) {
  int64_t id = job->job_id();
  if (!RequeueAllowed(*job) || job->spec().interactive()) {
    log_->warn("job not requeueable: NODE_FAIL job_id={} cause={:?}", id, why);
    FinishJob(job, JOB_NODE_FAIL, 0, 0);
    job->set_reason(fail_reason);
    return;
  }
  int max = config_.requeue.max_batch_requeue;
  if (job->auto_requeues() >= max) {
    log_->warn("job requeued too often: NODE_FAIL job_id={} cause={:?} requeues={}", id, why,
               job->auto_requeues());
    FinishJob(job, JOB_NODE_FAIL, 0, 0);
    job->set_reason(fmt::format("{}:MaxBatchRequeue={}_reached", fail_reason, max));
    return;
  }
  log_->warn("job requeued job_id={} cause={:?}", id, why);
  job->set_auto_requeues(job->auto_requeues() + 1);
  RequeueNow(job, "None", why);
}

bool Controller::RequeueOnExitCode(JobInfo* job, JobState end_state, const JobReport& r) {
  if (job->spec().interactive() || r.term_signal() != 0) return false;
  if (end_state != JOB_COMPLETED && end_state != JOB_FAILED) return false;
  const RequeueConfig& rq = config_.requeue;
  bool hold = rq.requeue_exit_hold.count(r.exit_code()) > 0;
  if (!hold && !rq.requeue_exit.count(r.exit_code())) return false;
  log_->info("job requeued on its exit code job_id={} exit_code={} held={}", job->job_id(),
             r.exit_code(), hold);
  job->set_hold_on_requeue(hold);
  RequeueNow(job, "None", "exit code " + std::to_string(r.exit_code()));
  return true;
}

void Controller::HoldRequeued(JobInfo* job) {
  job->set_hold_on_requeue(false);
  job->set_priority(0);
  job->set_held_by_admin(false);
  job->set_reason("JobHeldUser");
  if (auto* r = jobs_.MutableRequest(job->job_id())) r->priority = 0;
}

void Controller::DeliverSignal(const JobInfo& job, int sig, bool batch_only, bool full) {
  for (int i = 0; i < job.alloc_size(); ++i) {
    if (batch_only && i > 0) break;  // the batch shell lives on the first node
    SignalJobRequest req;
    req.set_job_id(job.job_id());
    req.set_kind(SIGNAL_DELIVER);
    req.set_signal(sig);
    req.set_batch_only(batch_only);
    req.set_full(full && !batch_only);
    SendSignalRequest(job.alloc(i).node(), std::move(req));
  }
}

void Controller::CheckWarnSignals() {
  int64_t now = Now();
  for (JobInfo* job : jobs_.Running()) {
    if (job->state() != JOB_RUNNING || job->completing() || job->warn_signal_sent() ||
        job->spec().signal().empty() || job->time_limit_min() <= 0) {
      continue;
    }
    Expected<SignalSpec> spec = ParseSignalSpec(job->spec().signal());
    if (!spec.ok()) continue;
    int64_t at = job->start_time() + job->time_limit_min() * 60 - spec->seconds;
    if (now < at) continue;
    job->set_warn_signal_sent(true);
    DeliverSignal(*job, spec->signal, spec->batch_only, false);
    MarkJob(job->job_id());
  }
}

}  // namespace sluice::ctld
