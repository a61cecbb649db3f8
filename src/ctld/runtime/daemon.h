// Daemon wiring for sluicectld: loads the config, prepares StateSaveLocation (mode
// 0755) and the cluster key, opens the state store (StateStorageType=state/pgsql: stands
// by until it leads, leadership.h), starts the ident socket, restores state, and serves
// ClientApi + NodeApi on its SlurmctldHost address and SlurmctldPort until SIGTERM/SIGINT.
#pragma once

#include <functional>
#include <string>

namespace sluice::ctld {

struct DaemonOptions {
  std::string config_path;
  bool clean_start = false;
  std::string host_name;  // -N: which SlurmctldHost this is (default: by host name)
  std::function<void(const char* point)> fault_hook;  // ControllerOptions::fault_hook
};

// Returns the process exit code.
int RunDaemon(const DaemonOptions& options);

}  // namespace sluice::ctld
