// What sluicectld checks in its configuration before it does anything else, beyond the
// parser's own checks (common/config.h, whose errors already name file and line): the log
// level, PrivateData, the scheduler's type and parameters. A standby runs them at start
// too, not when it takes over. `sluice config check FILE` runs the same checks offline and
// names the line that sets each key.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"

namespace sluice::ctld {

struct ConfigProblem {
  std::string key;  // the config key at fault
  std::string message;
};

std::vector<ConfigProblem> CheckControllerConfig(const Config& config);

// "path:line: message", the line of `text` that sets `key` (the last one, as the parser
// keeps it; "path: message" when no line does).
std::string WhereInConfig(const std::string& path, const std::string& text,
                          const ConfigProblem& problem);
// Each problem through WhereInConfig, with the text of the file at `path`.
std::vector<std::string> LocateConfigProblems(const std::string& path,
                                              const std::vector<ConfigProblem>& problems);

}  // namespace sluice::ctld
