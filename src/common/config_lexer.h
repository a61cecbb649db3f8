// Internal to common/: splits slurm.conf-style text into logical lines of Key=Value
// pairs. `#` starts a comment (`\#` is a literal '#'); a `\` at the end of a line
// continues it on the next; values may be double-quoted; spaces around '=' are
// allowed. Errors name the file and line: "<path>:<line>: <message>".
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice {

struct ConfigPair {
  std::string key;    // as written
  std::string value;  // quotes removed
};

struct ConfigLine {
  int line_no = 0;  // first physical line of the logical line
  std::vector<ConfigPair> pairs;
};

Expected<std::vector<ConfigLine>> LexConfig(std::string_view text, std::string_view path);

// "<path>:<line>: <message>" as an InvalidArgument status.
Status ConfigError(std::string_view path, int line, std::string_view message);

}  // namespace sluice
