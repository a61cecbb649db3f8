// The order in which backfill candidates are tried: the jobs behind the head of the queue
// (the first job, in the controller's priority order, that cannot start now; it keeps its
// reservation). The priority order still picks the head; these orders only decide which
// of the later jobs get the holes first.
//
// Orders (lower key first; ties by job id). d = the planned run time (the prediction,
// else the time limit; unlimited = a very long time), n = CPUs (all nodes), w = the time
// waited (now - submit_time), s = submit_time - origin (at least 1 s):
//  - kPriority: the pending order itself (plain EASY / conservative);
//  - kSjbf: shortest d first (Tsafrir et al.'s SJBF);
//  - kWfp3: highest (w / d)^3 x n first;
//  - kUnicep: highest w / (log2(n) x d) first (n counted as at least 2);
//  - kF1: lowest log10(d) x n + 870 x log10(s) first (Carastan-Santos & de Camargo 2017);
//  - kSgtf: smallest GPU-time (GPUs, else CPUs, x d) first, aged: divided by 1 + w / 1 h.
// The same orders can order the queue itself (SchedulerParameters queue_order=ORDER,
// QueueOrder below): the head and every later job are then taken by partition PriorityTier,
// then priority without its age (priority - priority_age: fair-share, QOS, partition,
// job size and nice still rank first), then the order's key, then job id. WFP3 and UNICEP
// age jobs themselves (their waits grow the key); the others need the starvation guard.
// Starvation guard: with factor K > 0, a job that has waited at least K x max(d, 10 s)
// (its bounded slowdown so far is K) is starving. Starving candidates are promoted: they
// come first, in the pending order (kPriority keeps the pending order as it is). A starving head is
// protected: the candidates behind it are planned with their time limits, not their predictions
// (backfill_scheduler.cc), so an under-predicted backfill cannot delay it, as in plain EASY. Pure
// and deterministic.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sched/types.h"

namespace sluice::sched {

enum class BackfillOrder { kPriority, kSjbf, kWfp3, kUnicep, kF1, kSgtf };

struct BackfillOrderConfig {
  BackfillOrder order = BackfillOrder::kPriority;
  double starvation_factor = 0;  // 0 = no promotion
  int64_t origin = 0;            // F1: submit times count from here
};

// Parses "priority", "sjbf", "wfp3", "unicep", "f1", "sgtf"; false if unknown.
bool ParseBackfillOrder(std::string_view name, BackfillOrder* out);
const char* BackfillOrderName(BackfillOrder order);

// The planned run time of `job` (d above).
int64_t PlannedRuntime(const JobRequest& job);

// Whether `job` is starving at `now` under `config` (never when the factor is 0).
bool IsStarving(const JobRequest& job, const BackfillOrderConfig& config, int64_t now);

// Sorts `positions` (indexes into `pending`, in pending order) into backfill order.
void SortBackfillCandidates(const std::vector<JobRequest>& pending,
                            const BackfillOrderConfig& config, int64_t now,
                            std::vector<size_t>* positions);

// The order a pass considers `pending` (in priority order) in, as indexes into it: the
// identity for kPriority, else the queue order described above (starving jobs first within
// their tier and priority, in pending order).
std::vector<size_t> QueueOrder(const std::vector<JobRequest>& pending,
                               const BackfillOrderConfig& config, int64_t now);

}  // namespace sluice::sched
