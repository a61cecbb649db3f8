#include "noded/gpu_detect.h"

#include <algorithm>

#include "gpu/gres_check.h"

namespace sluice {

GpuInfo ConfiguredGpu(const GpuDef& d) {
  GpuInfo g;
  g.set_index(d.index);
  g.set_type(d.type);
  g.set_file(d.file);
  g.set_links(d.links);
  g.set_cores(d.cores);
  return g;
}

std::vector<std::string> OtherGpuFiles(const std::vector<GpuInfo>& node_gpus,
                                       const google::protobuf::RepeatedField<int32_t>& given) {
  std::vector<std::string> out;
  for (const GpuInfo& g : node_gpus) {
    if (!g.file().empty() && std::find(given.begin(), given.end(), g.index()) == given.end()) {
      out.push_back(g.file());
    }
  }
  return out;
}

DetectedGpus DetectGpus(const NodeConfig& node, std::shared_ptr<gpu::Nvml> nvml) {
  DetectedGpus out;
  if (!nvml) {
    auto opened = gpu::Nvml::Open();
    if (!opened.ok()) {
      out.gres_error = "gres/gpu AutoDetect=nvml: " + opened.status().message();
      out.report = out.gres_error + "\n";
      return out;
    }
    nvml = std::move(*opened);
  }
  auto found = nvml->Discover();
  if (!found.ok()) {
    out.gres_error = "gres/gpu AutoDetect=nvml: " + found.status().message();
    out.report = out.gres_error + "\n";
    return out;
  }
  gpu::GresCheck check = gpu::CheckAgainstConfig(*found, node.gpus);
  for (size_t i = 0; i < found->size(); ++i) {
    const gpu::FoundGpu& f = (*found)[i];
    GpuInfo g = ConfiguredGpu(check.gpus[i]);
    g.set_uuid(f.uuid);
    g.set_name(f.name);
    g.set_memory_mb(f.memory_mb);
    g.set_pci_bus_id(f.pci_bus_id);
    if (f.numa_node >= 0) g.set_numa_node(f.numa_node);
    out.gpus.push_back(std::move(g));
  }
  out.gres_error = check.mismatch;
  out.report = gpu::FormatFound(*found, check.gpus);
  if (!check.mismatch.empty()) out.report += check.mismatch + "\n";
  out.nvml = std::move(nvml);
  return out;
}

}  // namespace sluice
