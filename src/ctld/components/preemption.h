// Preemption: the controller's preemption policy and what the last pass planned.
//   - who may preempt whom and how: PreemptType, the cluster PreemptMode, each partition's
//     PreemptMode / GraceTime / PriorityTier (slurm.conf) or each QOS's Preempt list,
//     PreemptMode and GraceTime (sacctmgr; preempt/qos);
//   - the scheduler's inputs (sched/preempt.h chooses the victims): the settings, and for
//     the running and pending jobs their tier, QOS, priority, start, whether already leaving;
//   - the pending jobs the last pass chose victims for (the preemptors), considered first
//     in the next pass so that nothing else takes what their victims release.
// What happens to a victim (signal, grace, kill, requeue or PREEMPTED) is the job's
// lifecycle and stays with the controller (preempt_ops.cc), which asks VictimMode/VictimGrace.
// Owner thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/config.h"
#include "ctld/components/job_table.h"
#include "sched/types.h"

namespace sluice::ctld {

// The QOS objects' preemption rules (Preempt=, PreemptMode=, GraceTime=), by QOS name.
sched::PreemptRules QosPreemptRules(const std::map<std::string, QosInfo>& qos);

class Preemption {
 public:
  // The job's QOS (its own, else its association's default, else "normal").
  using QosOf = std::function<std::string(const JobInfo&)>;
  Preemption(const Config* config, QosOf qos_of) : config_(config), qos_of_(std::move(qos_of)) {}

  bool enabled() const { return config_->preempt_type != PreemptType::kNone; }
  void SetQosRules(sched::PreemptRules rules) { qos_rules_ = std::move(rules); }

  // What a victim gets (kCluster resolved to the cluster's mode; kOff = never preempted)
  // and its grace time (0 = killed at once).
  PreemptMode VictimMode(const JobInfo& job) const;
  int64_t VictimGrace(const JobInfo& job) const;

  // The snapshot's settings and the running jobs' inputs; the pending requests' tier and
  // QOS, with the last pass's preemptors moved first. Nothing when preemption is off.
  void FillInputs(const JobTable& jobs, sched::ClusterSnapshot* snap,
                  std::vector<sched::JobRequest>* pending) const;
  // After a pass: the preemptors it planned (replacing the previous pass's).
  void PassPlanned(const sched::Plan& plan);
  const std::set<int64_t>& preemptors() const { return preemptors_; }

 private:
  const sched::PreemptRule* QosRule(const JobInfo& job) const;

  const Config* config_;
  QosOf qos_of_;
  sched::PreemptRules qos_rules_;
  std::set<int64_t> preemptors_;
};

}  // namespace sluice::ctld
