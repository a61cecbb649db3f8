// Submission-time validation and normalisation of a JobSpec against the configuration,
// with Slurm's error messages:
// Refusals that concern one value name it on a first line, in Slurm's words, before
// Slurm's error line (the commands print both, the last one after "Batch job submission
// failed: "):
//   unknown partition        -> "invalid partition specified: <p>\nInvalid partition name
//   specified" bad gres                 -> "invalid gres specified: <g>\nInvalid generic resource
//   (gres) specification" no default partition     -> "No partition specified or system default
//   partition" time over MaxTime        -> "Requested time limit is invalid (missing or exceeds
//   some limit)" memory over every node   -> "Memory specification can not be satisfied\nRequested
//   node ..." more CPUs/GPUs/TmpDisk per node than the largest node, unknown features: see
//   impossible_request.h. --mem=0 (mem_whole_node) takes the RealMemory of the partition's
//   smallest node (all of it on a uniform partition); --tmp limits the job to the nodes
//   with that much TmpDisk.
//   bad node lists / counts  -> "Invalid node name specified" / "Node count specification invalid"
// NormalizeJob fills the effective fields of JobInfo (partition, time limit, node/task/
// CPU counts, memory and GPUs per node, defaults of name/work dir); BuildRequest turns
// a normalised job into the scheduler's per-node request shape. Pure functions.
#pragma once

#include <string>

#include "common/config.h"
#include "common/status.h"
#include "sched/types.h"
#include "types.pb.h"

namespace sluice::ctld {

inline constexpr char kMsgInvalidPartition[] = "Invalid partition name specified";
inline constexpr char kMsgNoPartition[] = "No partition specified or system default partition";
inline constexpr char kMsgBadTimeLimit[] =
    "Requested time limit is invalid (missing or exceeds some limit)";
// The longest time limit, in minutes: Slurm counts minutes in 32 bits (0xffffffff is
// INFINITE), and so no "start + limit * 60" below can overflow.
inline constexpr int64_t kMaxTimeLimitMin = 0xfffffffe;
inline constexpr char kMsgNodeConfig[] = "Requested node configuration is not available";
inline constexpr char kMsgMemory[] = "Memory specification can not be satisfied";
inline constexpr char kMsgBadNodeName[] = "Invalid node name specified";
inline constexpr char kMsgNodeCount[] = "Node count specification invalid";
inline constexpr char kMsgBadGres[] = "Invalid generic resource (gres) specification";
inline constexpr char kMsgInvalidAccount[] =
    "Invalid account or account/partition combination specified";
inline constexpr char kMsgInvalidQos[] = "Invalid qos specification";
inline constexpr char kMsgCpusPerGpu[] = "--cpus-per-gpu is incompatible with --cpus-per-task";

const PartitionConfig* LookupPartition(const Config& config, const std::string& name);
// The partition's PriorityTier; 0 for a partition not configured.
int PartitionPriorityTier(const Config& config, const std::string& partition);
const PartitionConfig* LookupDefaultPartition(const Config& config);

// `job->spec()` is the request as submitted; fills the rest. Errors as above.
Status NormalizeJob(const Config& config, JobInfo* job);

// Per-node request for the scheduler from a normalised job.
Expected<sched::JobRequest> BuildRequest(const Config& config, const JobInfo& job);

}  // namespace sluice::ctld
