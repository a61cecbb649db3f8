// sbatch --dependency specifications, parsed into terms the controller evaluates.
//   after:ID[+min][:ID[+min]...]  afterany:ID[:ID]  afterok:ID  afternotok:ID
//   aftercorr:ID (task i of this array waits for task i of array ID)  singleton
// A job id may name one array task: afterok:123_4. Terms are joined by ',' (all must
// be satisfied) or '?' (any one suffices); mixing both is an error. "+min" is only
// accepted on after. Errors (kInvalidArgument, message kMsgDependency, Slurm's
// "Job dependency problem"): unknown type, missing or malformed ids, empty parts, more
// than kMaxDependencyTerms terms (every pending job's terms are evaluated on every
// scheduling pass, so their number is bounded, not only the text's length).
// FormatDependencyTerm renders one term as scontrol shows it: "afterok:11".
// Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr char kMsgDependency[] = "Job dependency problem";
inline constexpr size_t kMaxDependencyTerms = 4096;

struct DepTerm {
  std::string type;       // after, afterany, afterok, afternotok, aftercorr, singleton
  int64_t job_id = 0;     // 0 for singleton
  int64_t task_id = -1;   // -1 = whole job (all tasks of an array)
  int64_t delay_min = 0;  // after:ID+min
};

struct DependencySpec {
  std::vector<DepTerm> terms;
  bool any = false;  // '?' separated
};

Expected<DependencySpec> ParseDependency(std::string_view spec);

// "afterok:11", "after:12+5", "afterok:40_3", "singleton".
std::string FormatDependencyTerm(const DepTerm& term);

}  // namespace sluice
