#pragma once
// Resource limits a job takes from the shell that submitted it (sbatch/srun --propagate,
// Slurm's PropagateResourceLimits=ALL default): the submitting command reads its own soft
// limits, the node applies them to the batch shell or the step's tasks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

struct ResourceLimitValue {
  int resource = 0;   // RLIMIT_*
  uint64_t soft = 0;  // RLIM_INFINITY for unlimited
};

// --propagate's value: "" or "ALL" = every limit Slurm propagates, "NONE" = none, else a
// comma list of AS, CORE, CPU, DATA, FSIZE, MEMLOCK, NOFILE, NPROC, RSS, STACK (with or
// without Slurm's RLIMIT_ prefix).
Expected<std::vector<int>> ParsePropagate(std::string_view spec);

// This process's soft limits of `resources`.
std::vector<ResourceLimitValue> CurrentLimits(const std::vector<int>& resources);

// Sets each soft limit (raising the hard limit too where allowed, as for root); returns
// one message per limit that could not be set, in Slurm's words.
std::vector<std::string> ApplyLimits(const std::vector<ResourceLimitValue>& limits);

}  // namespace sluice
