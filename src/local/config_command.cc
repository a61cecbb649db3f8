#include "local/config_command.h"

#include <cstdio>

#include "common/config.h"
#include "ctld/runtime/config_check.h"

namespace sluice {

int ConfigCheckCommand(const std::string& path) {
  auto config = LoadConfigFile(path);
  if (!config.ok()) {  // the parser's errors name file and line
    std::fprintf(stderr, "%s\n", config.status().message().c_str());
    return 1;
  }
  const auto problems = ctld::CheckControllerConfig(*config);
  for (const std::string& where : ctld::LocateConfigProblems(path, problems))
    std::fprintf(stderr, "%s\n", where.c_str());
  if (!problems.empty()) return 1;
  size_t gpus = 0;
  for (const NodeConfig& n : config->nodes) gpus += n.gpus.size();
  const std::string storage =
      config->state_storage.type.empty() ? "state/sqlite" : config->state_storage.type;
  std::printf("%s: OK: %zu nodes (%zu GPUs), %zu partitions, %zu controllers, state in %s\n",
              path.c_str(), config->nodes.size(), gpus, config->partitions.size(),
              config->Controllers().size(), storage.c_str());
  return 0;
}

}  // namespace sluice
