// Preemption planning (pure): which running jobs to stop so that a pending job that
// cannot start now can start once they are gone.
//
// Who may preempt whom (MayPreempt): PreemptType=preempt/partition_prio: a victim whose
// partition's PriorityTier is lower than the preemptor's; preempt/qos: a victim whose QOS
// is in the preempt list of the preemptor's QOS (ClusterSnapshot.preempt.rules). Never a
// job whose PreemptMode is OFF, one already being preempted, or one that started less
// than PreemptExemptTime ago.
//
// Victim choice (ChooseVictims): jobs already being preempted count as gone. Fewest
// victims first (per node: the cheapest set that makes the node fit, nodes with the
// fewest victims chosen), victims taken lowest priority, then youngest (latest start),
// then highest job id first; the set is then pruned so that removing any single victim
// makes the job not fit. No victims at all when even every candidate gone does not make
// it fit. Deterministic; no I/O.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sched/types.h"

namespace sluice::sched {

bool MayPreempt(const PreemptSettings& settings, const JobRequest& preemptor,
                const RunningJob& victim, int64_t now);

struct VictimChoice {
  bool fits = false;             // the job fits once `victims` (and jobs already being
                                 // preempted) are gone; false = preempting cannot help
  std::vector<int64_t> victims;  // empty with fits: it only waits for earlier victims
  std::vector<NodeShare> alloc;  // where it would then run (PlaceJob's first fit)
};

VictimChoice ChooseVictims(const ClusterSnapshot& snapshot, const JobRequest& job, int64_t now);

// The scheduler hook: for every pending decision of `plan` (reason Resources or Priority)
// in order, chooses victims on the snapshot as the pass left it before that job (earlier
// starts applied, earlier preemptors' places taken, their victims and the jobs already
// leaving from their nodes spoken for) and appends them to plan->preemptions. A job that
// needs no new victims but waits for leaving jobs gets an entry with no victims.
void PlanPreemptions(const ClusterSnapshot& snapshot, const std::vector<JobRequest>& pending,
                     int64_t now, Plan* plan);

// `snapshot` with the preemptors' places taken (the part not held by their victims or by
// jobs already leaving), so that a second pass over it lets no later job start there.
ClusterSnapshot ClaimPreemptorPlaces(const ClusterSnapshot& snapshot,
                                     const std::vector<Preemption>& preemptions,
                                     const std::vector<JobRequest>& pending);

// The pending order after a pass that chose victims: the preemptors of that pass first (the
// resources their victims release are theirs: a requeued victim of higher priority must not
// take them back), the rest as they were. Returns positions in `pending`, in the new order.
std::vector<size_t> PreemptorsFirst(const std::vector<JobRequest>& pending,
                                    const std::set<int64_t>& preemptors);

// Frees what `job` holds in `snapshot`'s nodes (the inverse of ApplyAllocation).
void ReleaseAllocation(ClusterSnapshot* snapshot, const RunningJob& job);

}  // namespace sluice::sched
