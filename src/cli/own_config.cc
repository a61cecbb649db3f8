#include "cli/own_config.h"

namespace sluice {

Config LoadOwnConfig(const CliEnv& env) {
  std::string path = env.Getenv("SLUICE_CONF");
  auto cfg = LoadConfigFile(path.empty() ? DefaultConfigPath() : path);
  return cfg.ok() ? *cfg : Config();
}

}  // namespace sluice
