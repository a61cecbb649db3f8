// Accounting records from the controller's JobInfo (pure): the attempt's job record
// (attempt = restarts), its batch step ("N.batch": started, non-interactive jobs, on the
// batch host) and the TRES strings sacct shows (billing=4,cpu=4,gres/gpu=4,mem=4000M,node=2).
// Also the proto <-> record conversions used by the AcctJobs rpc.
#pragma once

#include <optional>

#include "acct/acct_record.h"
#include "client.pb.h"
#include "types.pb.h"

namespace sluice::acct {

AcctJobRecord JobRecordOf(const JobInfo& job);
// nullopt for jobs that never started or have no batch script. `usage`: what the
// stepd reported at the end (-1 / "" = not yet / unknown).
std::optional<AcctStepRecord> BatchStepOf(const JobInfo& job, const StepUsage& usage);
// The state a step shows when its job ended with `job_state` (CANCELLED for
// cancelled/timed-out jobs, else the job's).
int StepEndState(int job_state);
std::string TresString(int64_t cpus, int64_t mem_mb, int64_t gpus, const std::string& gpu_type,
                       int64_t nodes, bool billing);

AcctJob ToProto(const AcctJobRecord& r);
AcctStep ToProto(const AcctStepRecord& r);
AcctJobRecord FromProto(const AcctJob& p);
AcctStepRecord FromProto(const AcctStep& p);

}  // namespace sluice::acct
