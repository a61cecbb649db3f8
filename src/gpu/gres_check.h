// The GPUs a node with AutoDetect=nvml registers: what NVML found, checked against the
// configured ones (Gres= and gres.conf). A configured Type= names the GPU when it fits
// the product name (Type=a100 for an "NVIDIA A100-SXM4-80GB"), else the type comes from
// the name; configured File=/Links=/Cores= win over what was found. Any disagreement
// (count, type, device file) is described in `mismatch`, and the node is drained with it.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"
#include "gpu/nvml.h"

namespace sluice::gpu {

struct GresCheck {
  std::vector<GpuDef> gpus;  // one per found GPU, in NVML's order; cores = closest CPUs
  std::string mismatch;      // "" = the configuration agrees
};

GresCheck CheckAgainstConfig(const std::vector<FoundGpu>& found,
                             const std::vector<GpuDef>& configured);

// One GPU as a gres.conf-like line, as slurmd -G prints it (no newline):
// "Name=gpu Type=h100 Count=1 Index=0 File=/dev/nvidia0 Cores=0-55 Links=-1,18".
std::string GresLine(const GpuDef& d);

// slurmd -G style: one gres.conf-like line per GPU, then the topology matrix as
// `nvidia-smi topo -m` prints it (X, NV<n>, PIX, PXB, PHB, NODE, SYS).
std::string FormatFound(const std::vector<FoundGpu>& found, const std::vector<GpuDef>& effective);

}  // namespace sluice::gpu
