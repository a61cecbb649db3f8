// The sluice.conf a command runs under: $SLUICE_CONF, else the default path; an empty
// Config when it cannot be read (commands then use their defaults).
#pragma once

#include "cli/cli_env.h"
#include "common/config.h"

namespace sluice {

Config LoadOwnConfig(const CliEnv& env);

}  // namespace sluice
