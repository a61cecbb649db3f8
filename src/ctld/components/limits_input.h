// Scheduling-time association / QOS limits (AccountingStorageEnforce=limits):
// AddLimitsInput fills ClusterSnapshot::limits (sched/limit_types.h) for the scheduler's
// LimitsTracker: the scopes of every pending job in `pending` and of every job holding
// resources (user in account, each account up the tree, QOS, user in QOS), the limits of
// each scope with the usage it has accrued (GrpTRESMins), and what the running jobs hold
// and for how much longer (from `now`).
#pragma once

#include <cstdint>
#include <vector>

#include "ctld/components/assoc_db.h"
#include "ctld/components/fair_share.h"
#include "ctld/components/job_table.h"
#include "sched/types.h"

namespace sluice::ctld {

void AddLimitsInput(const JobTable& jobs, const AssocDb& assocs, const FairShare& fair_share,
                    const std::vector<sched::JobRequest>& pending, int64_t now,
                    sched::ClusterSnapshot* snap);

}  // namespace sluice::ctld
