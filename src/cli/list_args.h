// Small parsers for comma-separated command arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

// "a,b,,c" -> {"a","b","c"}
std::vector<std::string> SplitList(const std::string& s, char sep = ',');
// Job ids "11,15" (also space separated). "12_3" (array task) -> error
// "Job arrays are not supported yet: 12_3"; anything else -> "Invalid job id: x".
Expected<std::vector<int64_t>> ParseJobIdList(const std::string& s);
Expected<int64_t> ParseJobId(const std::string& s);

}  // namespace sluice
