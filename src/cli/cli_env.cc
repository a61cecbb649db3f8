#include "cli/cli_env.h"

#include <ostream>
#include <sstream>
#include <vector>

namespace sluice {

void PrintErrorLines(const CliEnv& env, const std::string& prog, const std::string& msg,
                     const std::string& last_prefix) {
  std::istringstream lines(msg);
  std::vector<std::string> v;
  for (std::string line; std::getline(lines, line);) v.push_back(line);
  if (v.empty()) v.push_back("");
  for (size_t i = 0; i < v.size(); ++i)
    *env.err << prog << ": error: " << (i + 1 == v.size() ? last_prefix : "") << v[i] << "\n";
}

}  // namespace sluice
