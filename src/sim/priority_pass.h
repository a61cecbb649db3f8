// Multifactor priority in the simulator: the same pipeline the controller runs before
// each scheduling pass (sched/pending_order.h), fed from the replay. Off by default (the
// replay then keeps FCFS order: submit order, priorities decreasing with it).
//
// When enabled, at every event time the replay first accrues fair-share usage in a
// sched::UsageLedger (decay by the half-life, then each job's CPUs x the seconds it ran
// since the last event: TRES billing with default weights); then, before each scheduler
// call, it computes every pending job's priority and orders the pending list by
// partition PriorityTier, priority, job id. Age counts from the job's eligible time (its
// submit time, or when its dependencies were met), job size is against the cluster's totals, and
// Fair Tree runs over the declared associations plus an implicit one (1 share) for each (account,
// user) with usage or a pending or running job. A job's association is (its account or "root", its
// user); a job without a user has fair-share 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/pending_order.h"
#include "sched/usage_ledger.h"
#include "sim/workload.h"

namespace sluice::sim {

struct SimPriority {
  bool enabled = false;
  sched::PriorityWeights weights;
  int64_t decay_half_life_s = 0;         // PriorityDecayHalfLife; 0 = no decay
  std::vector<sched::Assoc> assocs;      // declared accounts and users
  int64_t max_partition_job_factor = 0;  // highest PriorityJobFactor of all partitions
  int64_t max_qos_priority = 0;          // highest QOS Priority
};

// (account or "root", user) of `job`.
sched::UsageKey AssocKeyOf(const SimJob& job);

class PriorityPass {
 public:
  // Times passed in are relative to the trace start, which the ledger and the priority
  // math see as `epoch` (at least 1: the ledger reads time 0 as "never accrued").
  PriorityPass(const SimPriority& config, const sched::ClusterSnapshot& cluster, int64_t epoch);

  // Decays the ledger to `now`, then charges each of `ran` (job index, start, end; end -1 =
  // still running) for its run since the last call.
  struct Run {
    size_t index;
    int64_t start;
    int64_t end;
  };
  void Accrue(int64_t now, const std::vector<SimJob>& jobs, const std::vector<Run>& ran);

  // Sets each pending request's priority and reorders `pending` and the parallel
  // `pending_index` (job indexes) into the order the scheduler sees. `running` (job
  // indexes) adds the running jobs' associations to the tree, as the controller does;
  // `eligible_s` (by job index) is when each job joined the queue (its age's start).
  void Order(int64_t now, const std::vector<SimJob>& jobs, const std::vector<size_t>& running,
             const std::vector<int64_t>& eligible_s, std::vector<sched::JobRequest>* pending,
             std::vector<size_t>* pending_index) const;

  const sched::UsageLedger& ledger() const { return ledger_; }

 private:
  const SimPriority& config_;
  const int64_t epoch_;
  sched::PrioritySettings settings_;
  sched::UsageLedger ledger_;
};

}  // namespace sluice::sim
