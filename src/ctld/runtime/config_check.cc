#include "ctld/runtime/config_check.h"

#include <strings.h>

#include <fstream>
#include <sstream>

#include "ctld/components/private_data.h"
#include "ctld/components/scheduler_config.h"
#include "log/log.h"

namespace sluice::ctld {

std::vector<ConfigProblem> CheckControllerConfig(const Config& config) {
  std::vector<ConfigProblem> out;
  if (auto level = log::ParseLevel(config.ctld_debug); !level.ok())
    out.push_back({"SlurmctldDebug", "SlurmctldDebug: " + level.status().message()});
  if (auto it = config.raw.find("PrivateData"); it != config.raw.end()) {
    if (auto p = ParsePrivateData(it->second); !p.ok())
      out.push_back({"PrivateData", p.status().message()});
  }
  if (auto sched = SchedulerConfigFrom(config); !sched.ok()) {
    const std::string& m = sched.status().message();
    out.push_back({m.rfind("SchedulerType", 0) == 0 ? "SchedulerType" : "SchedulerParameters", m});
  }
  return out;
}

std::string WhereInConfig(const std::string& path, const std::string& text,
                          const ConfigProblem& problem) {
  std::istringstream in(text);
  std::string line;
  int at = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string code = line.substr(0, line.find('#'));
    for (size_t pos = 0; (pos = code.find('=', pos)) != std::string::npos; ++pos) {
      size_t start = code.find_last_of(" \t", pos);
      start = start == std::string::npos ? 0 : start + 1;
      const std::string key = code.substr(start, pos - start);
      if (strcasecmp(key.c_str(), problem.key.c_str()) == 0) at = n;
    }
  }
  return at > 0 ? path + ":" + std::to_string(at) + ": " + problem.message
                : path + ": " + problem.message;
}

std::vector<std::string> LocateConfigProblems(const std::string& path,
                                              const std::vector<ConfigProblem>& problems) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> out;
  for (const ConfigProblem& p : problems) out.push_back(WhereInConfig(path, text.str(), p));
  return out;
}

}  // namespace sluice::ctld
