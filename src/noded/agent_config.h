// Derives the agent's settings from the cluster config: its NodeConfig (address, port =
// node Port or SlurmdPort, CPUs, memory, GPUs from the fake backend = the configured
// GpuDefs, or `fake_gpus` devices when >= 0), spool directory (SlurmdSpoolDir with %n
// replaced by the node name), cluster key path (ClusterKeyFile, default
// <StateSaveLocation>/cluster.key) and heartbeat interval.
#pragma once

#include <string>

#include "common/config.h"
#include "common/status.h"
#include "noded/agent.h"

namespace sluice {

struct AgentSetup {
  AgentOptions options;
  std::string spool_dir;
  std::string key_file;
};

Expected<AgentSetup> AgentSetupFromConfig(const Config& config, const std::string& node_name,
                                          int fake_gpus = -1);

std::string ExpandSpoolDir(const std::string& pattern, const std::string& node_name);

// Seconds since the epoch at which the machine booted (0 when unknown).
int64_t ReadBootTime();

}  // namespace sluice
