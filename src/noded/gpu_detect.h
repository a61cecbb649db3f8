// The GPUs of an AutoDetect=nvml node (gres.conf): found through NVML (gpu/nvml.h) and
// checked against the configuration (gpu/gres_check.h). The agent registers what was
// found, with any disagreement as RegisterNodeRequest.gres_error (the controller drains
// the node with it); NVML that cannot be loaded is such a disagreement too, and then the
// node registers no GPUs. `sluiced --print-gres` prints the same (PrintGres).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "gpu/nvml.h"
#include "types.pb.h"

namespace sluice {

struct DetectedGpus {
  std::vector<GpuInfo> gpus;
  std::string gres_error;           // "" = found as configured
  std::shared_ptr<gpu::Nvml> nvml;  // kept for health checks (null: NVML not loaded)
  std::string report;               // gpu::FormatFound's text, or why nothing was found
};

// `nvml`: an already open NVML to use (null: open gpu::Nvml::DefaultLibrary()).
DetectedGpus DetectGpus(const NodeConfig& node, std::shared_ptr<gpu::Nvml> nvml = nullptr);

// The GpuInfo a configured GPU registers (no autodetection).
GpuInfo ConfiguredGpu(const GpuDef& d);

// ConstrainDevices: the device files of `node_gpus` whose index is not in `given`.
std::vector<std::string> OtherGpuFiles(const std::vector<GpuInfo>& node_gpus,
                                       const google::protobuf::RepeatedField<int32_t>& given);

}  // namespace sluice
