// Builds what a node agent needs to run a started job: output paths expanded from
// Slurm's filename patterns and the user's environment (the node's stepd adds the
// SLURM_* variables, see stepd/batch_env.h). One LaunchJobRequest per node of the
// allocation; alloc[0] is the batch host.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"
#include "node.pb.h"
#include "types.pb.h"

namespace sluice::ctld {

// Expands Slurm's filename patterns (common/slurm_format.h) in `pattern`; relative
// results are taken relative to `work_dir`. Empty pattern -> "slurm-%j.out" (arrays:
// "slurm-%A_%a.out"); "none" -> /dev/null (sbatch -o none: no file).
std::string ExpandOutputPath(const std::string& pattern, const JobInfo& job,
                             const std::string& node, const std::string& work_dir);

// `script` is the job's batch script and environment (JobScripts), which its record does
// not hold.
LaunchJobRequest BuildLaunch(const Config& config, const JobInfo& job, const JobScript& script,
                             int node_index);

}  // namespace sluice::ctld
