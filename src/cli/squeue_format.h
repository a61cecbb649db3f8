// squeue's fields, formats and sort order.
//   kSqueueDefaultFormat / kSqueueLongFormat / kSqueueStartFormat: Slurm's -o strings.
//   SqueueFormat(fields, jobs, now, header) renders the table, one line per job.
// Keys: -o letters (%i %A %j %u %t %T %r %R %D %C %b %N %l %L %M %P %Q %S %V %e %a %g
// %h %p %q %Z %o %c %m %k %y ...) and -O names (JobID, Name, State, Reason, NumNodes,
// NumCPUs, tres-per-node, tres-alloc, TimeLimit, NodeList, ...), which map onto the
// same values. Unknown keys are reported by ValidateSqueueFields.
#pragma once

#include <string>
#include <vector>

#include "cli/format_engine.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice {

inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
inline constexpr char kSqueueStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

// Resolves -O names to their letter keys; error "Invalid job format specification: x".
Status ValidateSqueueFields(std::vector<FormatField>* fields);

// The JobInfo fields (GetJobsRequest.fields paths) squeue needs to print `fields`
// (validated: letter keys): what their values read, and what the sorts, the array
// compression and the job selectors read; each once, sorted.
std::vector<std::string> SqueueFieldPaths(const std::vector<FormatField>& fields);

std::string SqueueHeader(const std::string& key);
std::string SqueueValue(const std::string& key, const JobInfo& job, int64_t now);

// Slurm's default order: partition, then state (pending first), then priority
// (highest first); ties keep the controller's order.
void SortJobsDefault(std::vector<JobInfo*>* jobs);
// --start: by expected start time (unknown last), then job id.
void SortJobsByStart(std::vector<JobInfo*>* jobs);

std::string SqueueFormat(const std::vector<FormatField>& fields, const std::vector<JobInfo*>& jobs,
                         int64_t now, bool header);

}  // namespace sluice
