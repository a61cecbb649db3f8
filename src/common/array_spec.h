// Job array index specifications (sbatch --array) and the compact task lists squeue and
// scontrol print.
//   "0-99"  "1,3,5-7"  "0-15:4"  "0-7%2" (throttle: at most 2 tasks running at once)
// ParseArrayRanges checks the syntax and the bound in one pass over the text, without
// expanding a range (its size is (hi - lo) / step + 1): it costs O(spec.size()) whatever
// the numbers say, so a command or the controller can refuse "5-999399999" at once.
// ParseArraySpec then returns the sorted, de-duplicated task ids; it expands only after
// the bound holds, so it never holds more than max_array_size ids, and ranges repeating
// one progression ("0-1000,0-1000,...") are merged before they are expanded.
// Errors (kInvalidArgument, message kMsgInvalidArray): empty or malformed parts,
// negative ids, max < min, step < 1, throttle < 0 or non-numeric, and ids >=
// max_array_size (Slurm's MaxArraySize, default 1001: task ids 0..1000; Slurm allows at
// most kMaxArraySizeCeiling). Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr char kMsgInvalidArray[] = "Invalid job array specification";
inline constexpr int64_t kDefaultMaxArraySize = 1001;
// The largest MaxArraySize Slurm accepts (slurm.conf(5)): no task id is above 4000000.
inline constexpr int64_t kMaxArraySizeCeiling = 4000001;

struct ArrayRange {
  int64_t lo = 0;
  int64_t hi = 0;  // the last id of the progression (lo + k * step)
  int64_t step = 1;
  int64_t size() const { return (hi - lo) / step + 1; }
};

struct ArrayRanges {
  std::vector<ArrayRange> ranges;  // as written
  int32_t throttle = 0;
  int64_t max_id = 0;       // the largest id named
  int64_t count_upper = 0;  // sum of range sizes (ids named twice count twice)
};

struct ArraySpec {
  std::vector<int64_t> task_ids;  // ascending, unique, non-empty
  int32_t throttle = 0;           // 0 = unlimited
};

Expected<ArrayRanges> ParseArrayRanges(std::string_view spec,
                                       int64_t max_array_size = kDefaultMaxArraySize);
Expected<ArraySpec> ParseArraySpec(std::string_view spec,
                                   int64_t max_array_size = kDefaultMaxArraySize);

// Ascending ids -> "0-3", "1,3,5-7" (consecutive runs only, as Slurm prints them).
std::string FormatTaskIds(const std::vector<int64_t>& sorted_ids);

// The task list squeue and scontrol show for an array's pending tasks in one record:
// "[2-7%2]" (ids in any order; the throttle when set).
std::string PendingTasksString(std::vector<int64_t> ids, int64_t throttle);

// The step when ids are evenly spaced (1 for one id), else 0.
int64_t UniformStep(const std::vector<int64_t>& sorted_ids);

}  // namespace sluice
