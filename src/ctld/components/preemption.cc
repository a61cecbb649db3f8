#include "ctld/components/preemption.h"

#include "ctld/components/validate.h"
#include "sched/preempt.h"

namespace sluice::ctld {

sched::PreemptRules QosPreemptRules(const std::map<std::string, QosInfo>& qos) {
  sched::PreemptRules rules;
  for (const auto& [name, q] : qos) {
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
  return rules;
}

const sched::PreemptRule* Preemption::QosRule(const JobInfo& job) const {
  auto it = qos_rules_.find(qos_of_(job));
  return it == qos_rules_.end() ? nullptr : &it->second;
}

PreemptMode Preemption::VictimMode(const JobInfo& job) const {
  PreemptMode mode = PreemptMode::kCluster;
  if (config_->preempt_type == PreemptType::kQos) {
    if (const sched::PreemptRule* r = QosRule(job)) mode = r->mode;
  } else if (const PartitionConfig* p = LookupPartition(*config_, job.spec().partition())) {
    mode = p->preempt_mode;
  }
  return mode == PreemptMode::kCluster ? config_->preempt_mode : mode;
}

int64_t Preemption::VictimGrace(const JobInfo& job) const {
  if (config_->preempt_type == PreemptType::kQos) {
    const sched::PreemptRule* r = QosRule(job);
    return r ? r->grace_s : 0;
  }
  const PartitionConfig* p = LookupPartition(*config_, job.spec().partition());
  return p ? p->grace_time_s : 0;
}

void Preemption::FillInputs(const JobTable& jobs, sched::ClusterSnapshot* snap,
                            std::vector<sched::JobRequest>* pending) const {
  snap->preempt.type = config_->preempt_type;
  if (!enabled()) return;
  snap->preempt.rules = qos_rules_;
  snap->preempt.exempt_s = config_->preempt_exempt_time_s;
  for (sched::RunningJob& r : snap->running) {
    const JobInfo* j = jobs.Find(r.job_id);
    if (!j) continue;
    r.priority = j->priority();
    r.start_time = j->start_time();
    r.priority_tier = PartitionPriorityTier(*config_, j->spec().partition());
    r.qos = qos_of_(*j);
    r.preempt_off = VictimMode(*j) == PreemptMode::kOff;
    r.being_preempted = j->preempt_time() > 0 || j->completing() || j->state() != JOB_RUNNING;
  }
  for (sched::JobRequest& q : *pending) {
    if (const JobInfo* j = jobs.Find(q.job_id)) {
      q.priority_tier = PartitionPriorityTier(*config_, j->spec().partition());
      q.qos = qos_of_(*j);
    }
  }
  std::vector<sched::JobRequest> ordered;  // the last pass's preemptors first
  ordered.reserve(pending->size());
  for (size_t i : sched::PreemptorsFirst(*pending, preemptors_)) {
    ordered.push_back(std::move((*pending)[i]));
  }
  *pending = std::move(ordered);
}

void Preemption::PassPlanned(const sched::Plan& plan) {
  preemptors_.clear();
  for (const sched::Preemption& p : plan.preemptions) preemptors_.insert(p.preemptor);
}

}  // namespace sluice::ctld
