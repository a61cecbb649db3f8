// Daemon wiring for sluicectld: loads the config, prepares StateSaveLocation (mode
// 0755), the cluster key and the ident socket, opens the state store, restores state,
// and serves ClientApi + NodeApi on SlurmctldHost:SlurmctldPort until SIGTERM/SIGINT.
#pragma once

#include <functional>
#include <string>

namespace sluice::ctld {

struct DaemonOptions {
  std::string config_path;
  bool clean_start = false;
  std::function<void(const char* point)> fault_hook;  // ControllerOptions::fault_hook
};

// Returns the process exit code.
int RunDaemon(const DaemonOptions& options);

}  // namespace sluice::ctld
