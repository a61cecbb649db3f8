// Builds what a node agent needs to run a started job: output paths expanded from
// Slurm's filename patterns, and the batch environment (the user's submitted
// environment plus the SLURM_* variables a batch script sees, CUDA_VISIBLE_DEVICES
// for the node's GPUs). One LaunchJobRequest per node of the allocation; alloc[0] is
// the batch host.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"
#include "node.pb.h"
#include "types.pb.h"

namespace sluice::ctld {

// Expands %j %J %x %u %N %n %t %s %A %a %% (with optional zero-pad width, "%4j") in
// `pattern`; relative results are taken relative to `work_dir`. Empty pattern ->
// "slurm-%j.out".
std::string ExpandOutputPath(const std::string& pattern, const JobInfo& job,
                             const std::string& node, const std::string& work_dir);

// "2(x2),1" as in SLURM_JOB_CPUS_PER_NODE / SLURM_TASKS_PER_NODE.
std::string RepeatCompress(const std::vector<int>& counts);

std::vector<std::string> BuildJobEnv(const Config& config, const JobInfo& job, int node_index);

LaunchJobRequest BuildLaunch(const Config& config, const JobInfo& job, int node_index);

}  // namespace sluice::ctld
