// Nvml: the node's NVIDIA GPUs through NVML, loaded at run time with dlopen (the
// library SLUICE_NVML_LIBRARY names, else libnvidia-ml.so.1), so Sluice builds and runs
// where there is none; the tests load a fake NVML (tests/fake_nvml) the same way.
//   - Discover(): every GPU in NVML's index order: minor number, product name and the
//     gres type derived from it, UUID, memory, PCI bus id, the CPUs and NUMA node closest
//     to it, and its links to each other GPU (NVLink count, directly or through NVSwitch;
//     else the PCIe/NUMA level of their closest common ancestor).
//   - CheckHealth(): per GPU "" or what is wrong with it (uncorrectable ECC errors,
//     retired pages or row remapping pending, an XID error seen since Open, fallen off the
//     bus). An XID stays reported until the agent restarts.
//   - Sample(): utilization and memory in use of one GPU now.
// Thread-safe (NVML is; the XID memory has its own mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "gpu/nvml_abi.h"

namespace sluice::gpu {

struct FoundGpu {
  int index = 0;
  unsigned minor = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string type;        // "h100" (GpuTypeFromName)
  std::string uuid;        // "GPU-..."
  std::string pci_bus_id;  // "00000000:18:00.0"
  int64_t memory_mb = 0;
  std::string cpus;  // the CPUs closest to it as a list ("0-15,32-47"); "" = unknown
  int numa_node = -1;
  std::vector<int> nvlinks;        // by GPU index: NVLinks to it; -1 for itself
  std::vector<std::string> paths;  // by GPU index, as nvidia-smi topo -m: X, NV18, PIX, ..., SYS

  std::string File() const { return "/dev/nvidia" + std::to_string(minor); }
  // gres.conf Links= ("-1,18,18,..."); "" when the GPU has no NVLink at all.
  std::string Links() const;
};

struct GpuSample {
  int util_pct = 0;
  int64_t mem_used_mb = 0;
};

class Nvml {
 public:
  static std::string DefaultLibrary();
  // Loads and initialises NVML; an error names the library and why.
  static Expected<std::unique_ptr<Nvml>> Open(const std::string& library = DefaultLibrary());
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  Expected<std::vector<FoundGpu>> Discover();
  std::vector<std::string> CheckHealth();
  Expected<GpuSample> Sample(int index);

  struct Api;  // the resolved entry points (nvml.cc)

 private:
  Nvml() = default;
  Expected<nvmlDevice_t> Device(int index);
  std::string DeviceProblem(int index, nvmlDevice_t dev);
  void DrainXidEvents();

  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  nvmlEventSet_t events_ = nullptr;
  std::mutex mu_;
  std::map<int, unsigned long long> xid_;  // GPU index -> the last critical XID seen
};

// The gres type of a product name: its model word in lower case ("NVIDIA H100 80GB HBM3"
// -> "h100", "NVIDIA A100-SXM4-80GB" -> "a100", "Tesla V100-SXM2-32GB" -> "v100",
// "NVIDIA GeForce RTX 4090" -> "rtx_4090", "NVIDIA L40S" -> "l40s").
std::string GpuTypeFromName(std::string_view name);

}  // namespace sluice::gpu
