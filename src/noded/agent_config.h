// Derives the agent's settings from the cluster config: its NodeConfig (address, port =
// node Port or SlurmdPort, CPUs, memory, GPUs: found through NVML on AutoDetect=nvml
// nodes (gpu_detect.h), else the configured GpuDefs, or `fake_gpus` devices when >= 0),
// spool directory (SlurmdSpoolDir with %n
// replaced by the node name), cluster key path (ClusterKeyFile, default
// <StateSaveLocation>/cluster.key) and heartbeat interval.
#pragma once

#include <memory>
#include <string>

#include "common/config.h"
#include "common/status.h"
#include "gpu/nvml.h"
#include "noded/agent.h"

namespace sluice {

struct AgentSetup {
  AgentOptions options;
  std::string spool_dir;
  std::string key_file;
  std::shared_ptr<gpu::Nvml> nvml;  // AutoDetect=nvml and NVML loaded: for health checks
};

Expected<AgentSetup> AgentSetupFromConfig(const Config& config, const std::string& node_name,
                                          int fake_gpus = -1);

std::string ExpandSpoolDir(const std::string& pattern, const std::string& node_name);

// Seconds since the epoch at which the machine booted (0 when unknown).
int64_t ReadBootTime();

}  // namespace sluice
