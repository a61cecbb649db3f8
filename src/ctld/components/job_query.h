// GetJobs' filters (GetJobsRequest users, accounts, states, partitions, names, qos,
// reservations, nodes), applied by the controller so that a query copies and sends only
// the jobs it names:
//   MatchesJobQuery(job, q)   does the job pass every filter given (AND between kinds, OR
//                             within one, as squeue's options)?
//   JobQueryCandidates(t, q)  the ids worth testing, from the JobTable's indexes: the jobs
//                             not pending (for `-t R`, `-w node`) or the jobs of the users
//                             named (`-u`), whichever is smaller; nullopt = every job.
#pragma once

#include <optional>
#include <vector>

#include "client.pb.h"
#include "ctld/components/job_table.h"

namespace sluice::ctld {

// The filters only: job_ids are looked up by the caller (Controller::GetJobs).
bool MatchesJobQuery(const JobInfo& job, const GetJobsRequest& q);

// Ascending ids, a superset of the jobs that pass the filters of `q`.
std::optional<std::vector<int64_t>> JobQueryCandidates(const JobTable& jobs,
                                                       const GetJobsRequest& q);

}  // namespace sluice::ctld
