// `sluice config check FILE`: validates a cluster configuration offline, as sluicectld would
// at start (the parser, then ctld/runtime/config_check.h). Prints each problem as
// "FILE:LINE: message" and exits 1, or one line saying what the file describes and exits 0.
#pragma once

#include <string>

namespace sluice {

int ConfigCheckCommand(const std::string& path);

}  // namespace sluice
