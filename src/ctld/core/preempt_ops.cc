// Controller: preemption (PreemptType / PreemptMode / GraceTime; sched/preempt.h chooses
// the victims). Each scheduling pass fills the snapshot's preemption inputs (settings, the
// running jobs' tier, QOS, priority, start, mode, whether already leaving) and carries out
// the plan's preemptions:
//   - a victim with a grace time first gets its --signal signal if it has one, else
//     SIGCONT + SIGTERM (shell, its children and steps), and is killed when the grace time
//     is over (Tick -> CheckPreemptGrace); without a grace time it is killed at once;
//   - REQUEUE: killed and requeued (restart count bumped, output appended, PENDING again);
//     a victim that is not requeueable (--no-requeue, JobRequeue=0, salloc/srun) is
//     cancelled instead;
//   - CANCEL: state PREEMPTED, exit code 0:15.
// A victim that ends by itself during its grace time is requeued / PREEMPTED all the same.
// The preemptor stays PENDING (reason Resources) and starts through a normal pass once
// the victims' resources are released: they hold them until their ends are reported.
// Meanwhile it is considered first in each pass, so nothing else takes its place.
#include <fmt/format.h>
#include <csignal>

#include <algorithm>

#include "common/signal_spec.h"
#include "ctld/components/preemption.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

void Controller::SetQosPreemptRules(sched::PreemptRules rules) {
  preemption_.SetQosRules(std::move(rules));
  WantSchedule();
}

void Controller::SyncQosPreemptRules() { SetQosPreemptRules(QosPreemptRules(assoc_db_.qos())); }

void Controller::ApplyPreemptions(const sched::Plan& plan) {
  preemption_.PassPlanned(plan);
  for (const sched::Preemption& p : plan.preemptions) {
    for (int64_t id : p.victims) {
      JobInfo* victim = jobs_.Find(id);
      if (!victim || victim->state() != JOB_RUNNING || victim->completing() ||
          victim->preempt_time() > 0) {
        continue;  // gone meanwhile, or already being preempted
      }
      StartPreempt(victim, p.preemptor);
    }
  }
}

void Controller::StartPreempt(JobInfo* job, int64_t preemptor) {
  PreemptMode mode = preemption_.VictimMode(*job);
  if (mode == PreemptMode::kOff) return;
  if (mode == PreemptMode::kRequeue && (!RequeueAllowed(*job) || job->spec().interactive())) {
    mode = PreemptMode::kCancel;  // not requeueable: cancelled instead
  }
  const int64_t grace = preemption_.VictimGrace(*job);
  log_->info("job preempted job_id={} by_job_id={} mode={} grace_s={}", job->job_id(), preemptor,
             PreemptModeName(mode), grace);
  ++stats_.process.preemptions;
  RecordEvent(EventKind::kPreemption, job, job->alloc_size() > 0 ? job->alloc(0).node() : "",
              fmt::format("job {} preempted by job {} ({})", job->job_id(), preemptor,
                          PreemptModeName(mode)));
  job->set_preempt_time(Now());
  job->set_preempted_by(preemptor);
  job->set_preempt_mode(static_cast<int>(mode));
  MarkJob(job->job_id());
  if (grace <= 0) {
    KillPreempted(job);
    return;
  }
  job->set_preempt_kill_time(Now() + grace);
  Expected<SignalSpec> user = ParseSignalSpec(job->spec().signal());
  if (!job->spec().signal().empty() && user.ok()) {
    DeliverSignal(*job, user->signal, user->batch_only, false);
  } else {  // Slurm: SIGCONT and SIGTERM to the whole job
    DeliverSignal(*job, SIGCONT, false, true);
    DeliverSignal(*job, SIGTERM, false, true);
  }
}

void Controller::KillPreempted(JobInfo* job) {
  job->set_preempt_kill_time(0);
  MarkJob(job->job_id());
  if (static_cast<PreemptMode>(job->preempt_mode()) == PreemptMode::kRequeue) {
    BeginRequeue(job);  // as scontrol requeue: requeued when its end is reported
    return;
  }
  StartCancel(job, JOB_PREEMPTED);
  if (!HoldsResources(*job)) {  // interactive: ended at once
    job->set_exit_code(0);
    job->set_term_signal(SIGTERM);
  }
}

void Controller::CheckPreemptGrace() {
  const int64_t now = Now();
  for (JobInfo* job : jobs_.Running()) {  // an earlier kill may have ended a het sibling
    if (job->state() == JOB_RUNNING && !job->completing() && job->preempt_kill_time() > 0 &&
        now >= job->preempt_kill_time()) {
      KillPreempted(job);
    }
  }
}

bool Controller::EndPreempted(JobInfo* job) {
  if (job->preempt_time() == 0 || job->requeue_on_end()) return false;
  const bool by_itself = !job->completing() && job->state() == JOB_RUNNING;
  if (by_itself && static_cast<PreemptMode>(job->preempt_mode()) == PreemptMode::kRequeue) {
    RequeueNow(job, "None");  // ended during its grace time
    return true;
  }
  if (!by_itself && job->state() != JOB_PREEMPTED) return false;  // scancel'ed meanwhile
  if (by_itself) job->set_end_time(Now());
  jobs_.SetState(job, JOB_PREEMPTED);
  job->set_reason("None");
  job->set_exit_code(0);
  job->set_term_signal(SIGTERM);
  ReleaseResources(job);
  return true;
}

}  // namespace sluice::ctld
