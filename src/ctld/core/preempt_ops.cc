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
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "sched/preempt.h"

namespace sluice::ctld {

void Controller::SetQosPreemptRules(sched::PreemptRules rules) {
  qos_preempt_rules_ = std::move(rules);
  WantSchedule();
}

void Controller::SyncQosPreemptRules() {
  sched::PreemptRules rules;
  for (const auto& [name, q] : assoc_db_.qos()) {
    sched::PreemptRule& r = rules[name];
    r.preempts.insert(q.preempt().begin(), q.preempt().end());
    r.grace_s = q.grace_time_s();
    switch (q.preempt_mode()) {
      case QOS_PREEMPT_OFF:
        r.mode = PreemptMode::kOff;
        break;
      case QOS_PREEMPT_CANCEL:
        r.mode = PreemptMode::kCancel;
        break;
      case QOS_PREEMPT_REQUEUE:
        r.mode = PreemptMode::kRequeue;
        break;
      default:
        r.mode = PreemptMode::kCluster;
        break;
    }
  }
  SetQosPreemptRules(std::move(rules));
}

PreemptMode Controller::VictimMode(const JobInfo& job) const {
  PreemptMode mode = PreemptMode::kCluster;
  if (config_.preempt_type == PreemptType::kQos) {
    auto it = qos_preempt_rules_.find(JobQos(job));
    if (it != qos_preempt_rules_.end()) mode = it->second.mode;
  } else if (const PartitionConfig* p = LookupPartition(config_, job.spec().partition())) {
    mode = p->preempt_mode;
  }
  return mode == PreemptMode::kCluster ? config_.preempt_mode : mode;
}

int64_t Controller::VictimGrace(const JobInfo& job) const {
  if (config_.preempt_type == PreemptType::kQos) {
    auto it = qos_preempt_rules_.find(JobQos(job));
    return it == qos_preempt_rules_.end() ? 0 : it->second.grace_s;
  }
  const PartitionConfig* p = LookupPartition(config_, job.spec().partition());
  return p ? p->grace_time_s : 0;
}

void Controller::FillPreemptInputs(sched::ClusterSnapshot* snap,
                                   std::vector<sched::JobRequest>* pending) const {
  snap->preempt.type = config_.preempt_type;
  if (config_.preempt_type == PreemptType::kNone) return;
  snap->preempt.rules = qos_preempt_rules_;
  snap->preempt.exempt_s = config_.preempt_exempt_time_s;
  auto tier = [this](const JobInfo& j) {
    const PartitionConfig* p = LookupPartition(config_, j.spec().partition());
    return p ? p->priority_tier : 0;
  };
  for (sched::RunningJob& r : snap->running) {
    const JobInfo* j = jobs_.Find(r.job_id);
    if (!j) continue;
    r.priority = j->priority();
    r.start_time = j->start_time();
    r.priority_tier = tier(*j);
    r.qos = JobQos(*j);
    r.preempt_off = VictimMode(*j) == PreemptMode::kOff;
    r.being_preempted = j->preempt_time() > 0 || j->completing() || j->state() != JOB_RUNNING;
  }
  for (sched::JobRequest& q : *pending) {
    if (const JobInfo* j = jobs_.Find(q.job_id)) {
      q.priority_tier = tier(*j);
      q.qos = JobQos(*j);
    }
  }
  std::vector<sched::JobRequest> ordered;  // the last pass's preemptors first
  ordered.reserve(pending->size());
  for (size_t i : sched::PreemptorsFirst(*pending, preemptors_)) {
    ordered.push_back(std::move((*pending)[i]));
  }
  *pending = std::move(ordered);
}

void Controller::ApplyPreemptions(const sched::Plan& plan) {
  preemptors_.clear();
  for (const sched::Preemption& p : plan.preemptions) {
    preemptors_.insert(p.preemptor);
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
  PreemptMode mode = VictimMode(*job);
  if (mode == PreemptMode::kOff) return;
  if (mode == PreemptMode::kRequeue && (!RequeueAllowed(*job) || job->spec().interactive())) {
    mode = PreemptMode::kCancel;  // not requeueable: cancelled instead
  }
  const int64_t grace = VictimGrace(*job);
  log_->info("job preempted job_id={} by_job_id={} mode={} grace_s={}", job->job_id(), preemptor,
             PreemptModeName(mode), grace);
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
  for (auto& [id, job] : jobs_.jobs()) {
    if (job.state() == JOB_RUNNING && !job.completing() && job.preempt_kill_time() > 0 &&
        now >= job.preempt_kill_time()) {
      KillPreempted(&job);
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
