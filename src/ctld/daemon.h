// Daemon wiring for sluicectld: loads the config, prepares StateSaveLocation (mode
// 0755), the cluster key and the ident socket, opens the state store, restores state,
// and serves ClientApi + NodeApi on SlurmctldHost:SlurmctldPort until SIGTERM/SIGINT.
#pragma once

#include <string>

namespace sluice::ctld {

struct DaemonOptions {
  std::string config_path;
  bool clean_start = false;
};

// Returns the process exit code.
int RunDaemon(const DaemonOptions& options);

}  // namespace sluice::ctld
