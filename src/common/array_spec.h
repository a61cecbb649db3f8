// Job array index specifications (sbatch --array) and the compact task lists squeue and
// scontrol print.
//   "0-99"  "1,3,5-7"  "0-15:4"  "0-7%2" (throttle: at most 2 tasks running at once)
// ParseArraySpec returns the sorted, de-duplicated task ids. Errors (kInvalidArgument,
// message kMsgInvalidArray): empty or malformed parts, negative ids, max < min, step
// < 1, throttle < 0 or non-numeric, and ids >= max_array_size (Slurm's MaxArraySize,
// default 1001: task ids 0..1000). Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr char kMsgInvalidArray[] = "Invalid job array specification";
inline constexpr int64_t kDefaultMaxArraySize = 1001;

struct ArraySpec {
  std::vector<int64_t> task_ids;  // ascending, unique, non-empty
  int32_t throttle = 0;           // 0 = unlimited
};

Expected<ArraySpec> ParseArraySpec(std::string_view spec,
                                   int64_t max_array_size = kDefaultMaxArraySize);

// Ascending ids -> "0-3", "1,3,5-7" (consecutive runs only, as Slurm prints them).
std::string FormatTaskIds(const std::vector<int64_t>& sorted_ids);

// The step when ids are evenly spaced (1 for one id), else 0.
int64_t UniformStep(const std::vector<int64_t>& sorted_ids);

}  // namespace sluice
