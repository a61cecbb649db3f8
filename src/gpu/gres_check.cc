#include "gpu/gres_check.h"

#include <fmt/format.h>

#include "common/text_util.h"

namespace sluice::gpu {
namespace {

// Letters and digits only, lower case: "A100-SXM4" and "a100 sxm4" compare equal.
std::string Squash(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(c));
  }
  return out;
}

bool TypeFits(const std::string& configured, const FoundGpu& g) {
  return configured == g.type || Squash(g.name).find(Squash(configured)) != std::string::npos;
}

}  // namespace

GresCheck CheckAgainstConfig(const std::vector<FoundGpu>& found,
                             const std::vector<GpuDef>& configured) {
  GresCheck out;
  std::vector<std::string> problems;
  if (found.size() != configured.size()) {
    problems.push_back(fmt::format("NVML found {} GPUs but the configuration has {}", found.size(),
                                   configured.size()));
  }
  for (size_t i = 0; i < found.size(); ++i) {
    const FoundGpu& f = found[i];
    GpuDef d;
    d.index = static_cast<int>(i);
    d.type = f.type;
    d.file = f.File();
    d.links = f.Links();
    d.cores = f.cpus;
    if (i < configured.size()) {
      const GpuDef& c = configured[i];
      if (!c.type.empty() && TypeFits(c.type, f)) {
        d.type = c.type;
      } else if (!c.type.empty()) {
        problems.push_back(
            fmt::format("GPU {} is an {} ({}), configured as {}", i, f.name, f.type, c.type));
      }
      if (!c.file.empty() && c.file != d.file) {
        problems.push_back(fmt::format("GPU {} is {}, configured as {}", i, d.file, c.file));
      }
      if (!c.links.empty()) d.links = c.links;
      if (!c.cores.empty()) d.cores = c.cores;
    }
    out.gpus.push_back(std::move(d));
  }
  if (!problems.empty()) {
    out.mismatch = "gres/gpu AutoDetect=nvml: " + problems.front();
    for (size_t i = 1; i < problems.size(); ++i) out.mismatch += "; " + problems[i];
  }
  return out;
}

std::string GresLine(const GpuDef& d) {
  auto or_null = [](const std::string& s) { return s.empty() ? std::string("(null)") : s; };
  return fmt::format("Name=gpu Type={} Count=1 Index={} File={} Cores={} Links={}", d.type, d.index,
                     or_null(d.file), or_null(d.cores), or_null(d.links));
}

std::string FormatFound(const std::vector<FoundGpu>& found, const std::vector<GpuDef>& effective) {
  std::string out;
  for (size_t i = 0; i < found.size() && i < effective.size(); ++i) {
    const FoundGpu& f = found[i];
    out +=
        fmt::format("{} UUID={} PCI={} Memory={}M NUMA={} Product=\"{}\"\n", GresLine(effective[i]),
                    f.uuid, f.pci_bus_id, f.memory_mb, f.numa_node, f.name);
  }
  if (found.empty()) return out;
  out += "\n      ";
  for (size_t j = 0; j < found.size(); ++j) out += fmt::format("{:<6}", fmt::format("GPU{}", j));
  out += "CPU Affinity  NUMA Affinity\n";
  for (const FoundGpu& f : found) {
    out += fmt::format("{:<6}", fmt::format("GPU{}", f.index));
    for (const std::string& p : f.paths) out += fmt::format("{:<6}", p);
    out += fmt::format("{:<14}{}\n", f.cpus.empty() ? "N/A" : f.cpus,
                       f.numa_node < 0 ? "N/A" : std::to_string(f.numa_node));
  }
  return out;
}

}  // namespace sluice::gpu
