// The inputs of a scheduling pass that come before the scheduler: the association tree
// fair-share is computed over, the multifactor priority of every pending job, and the
// order the scheduler sees the pending jobs in. The controller (ctld/components/fair_share.h)
// gathers the inputs from its tables; the simulator (sim/simulator.cc) from a trace or a
// scenario; both run this same code. Pure and deterministic: time comes in as `now`.
//
//  - AssociationTree: the declared associations plus an implicit one (shares 1) for
//    every (account, user) that has usage in the ledger or is in `seen` without being
//    declared, each user's usage being its decayed billing in the ledger.
//  - PrioritizePending: Fair Tree over that tree (a tree ComputeFairTree rejects gives
//    every job fair-share 0), then ComputePriority (priority.h) for every job that is not
//    held. Held jobs get no factors (their priority stays 0).
//  - PendingOrder: partition PriorityTier descending, then priority descending, then job
//    id ascending.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "sched/priority.h"
#include "sched/types.h"
#include "sched/usage_ledger.h"

namespace sluice::sched {

// One pending job's priority inputs.
struct PendingJob {
  int64_t job_id = 0;
  int64_t eligible_time = 0;  // age counts from here
  int num_nodes = 1;
  int64_t num_cpus = 1;              // all nodes
  UsageKey assoc;                    // (account, user) whose fair-share it gets
  int64_t partition_job_factor = 0;  // its partition's PriorityJobFactor
  int64_t qos_priority = 0;          // its QOS's Priority
  int64_t nice = 0;
  bool held = false;  // priority 0: not prioritized
};

// What every job's priority is computed against.
struct PrioritySettings {
  PriorityWeights weights;
  ClusterTotals totals;
  int64_t max_partition_job_factor = 0;  // highest PriorityJobFactor of all partitions
  int64_t max_qos_priority = 0;          // highest QOS Priority
};

std::vector<Assoc> AssociationTree(std::vector<Assoc> declared, const std::vector<UsageKey>& seen,
                                   const UsageLedger& ledger);

// Factors (and priority) of every job that is not held, by job id.
std::map<int64_t, PriorityFactors> PrioritizePending(const PrioritySettings& settings,
                                                     const std::vector<Assoc>& tree,
                                                     const std::vector<PendingJob>& jobs,
                                                     int64_t now);

// The order to pass `pending` to the scheduler in, as indices into it; `tiers` is
// parallel to `pending` (each job's partition PriorityTier).
std::vector<size_t> PendingOrder(const std::vector<JobRequest>& pending,
                                 const std::vector<int>& tiers);

}  // namespace sluice::sched
