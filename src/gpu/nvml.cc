#include "gpu/nvml.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <tuple>

#include "common/text_util.h"

namespace sluice::gpu {

struct Nvml::Api {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlErrorString_fn error_string = nullptr;
  nvmlDeviceGetCount_v2_fn count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn handle = nullptr;
  nvmlDeviceGetName_fn name = nullptr;
  nvmlDeviceGetUUID_fn uuid = nullptr;
  nvmlDeviceGetMinorNumber_fn minor = nullptr;
  nvmlDeviceGetMemoryInfo_fn memory = nullptr;
  nvmlDeviceGetPciInfo_v3_fn pci = nullptr;
  // Optional: absent or unsupported leaves the value unknown.
  nvmlDeviceGetCpuAffinity_fn cpu_affinity = nullptr;
  nvmlDeviceGetMemoryAffinity_fn memory_affinity = nullptr;
  nvmlDeviceGetTopologyCommonAncestor_fn ancestor = nullptr;
  nvmlDeviceGetNvLinkState_fn nvlink_state = nullptr;
  nvmlDeviceGetNvLinkRemotePciInfo_v2_fn nvlink_remote = nullptr;
  nvmlDeviceGetTotalEccErrors_fn ecc = nullptr;
  nvmlDeviceGetRetiredPagesPendingStatus_fn retired_pending = nullptr;
  nvmlDeviceGetRemappedRows_fn remapped_rows = nullptr;
  nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
  nvmlEventSetCreate_fn event_set_create = nullptr;
  nvmlDeviceRegisterEvents_fn register_events = nullptr;
  nvmlEventSetWait_v2_fn event_wait = nullptr;
  nvmlEventSetFree_fn event_set_free = nullptr;

  std::string Error(nvmlReturn_t rc) const {
    const char* s = error_string ? error_string(rc) : nullptr;
    return s ? fmt::format("{} ({})", s, rc) : fmt::format("NVML error {}", rc);
  }
};

namespace {

template <typename Fn>
void Resolve(void* handle, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(::dlsym(handle, symbol));
}

std::string CString(const char* buf, size_t size) { return std::string(buf, strnlen(buf, size)); }

// (domain, bus, device): how a PCI address is compared whatever its text form.
std::tuple<unsigned, unsigned, unsigned> PciKey(const nvmlPciInfo_t& p) {
  return {p.domain, p.bus, p.device};
}

const char* LevelName(int level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
      return "X";
    case NVML_TOPOLOGY_SINGLE:
      return "PIX";
    case NVML_TOPOLOGY_MULTIPLE:
      return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE:
      return "PHB";
    case NVML_TOPOLOGY_NODE:
      return "NODE";
    default:
      return "SYS";
  }
}

std::vector<int> MaskIds(const std::vector<unsigned long>& mask) {
  std::vector<int> ids;
  constexpr int kBits = sizeof(unsigned long) * CHAR_BIT;
  for (size_t w = 0; w < mask.size(); ++w) {
    for (int b = 0; b < kBits; ++b) {
      if (mask[w] & (1UL << b)) ids.push_back(static_cast<int>(w) * kBits + b);
    }
  }
  return ids;
}

int SysfsNumaNode(const std::string& bus_id) {
  // sysfs names the device by a 4-digit domain in lower case: 0000:18:00.0.
  std::string id = bus_id.size() > 12 ? bus_id.substr(bus_id.size() - 12) : bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream in("/sys/bus/pci/devices/" + id + "/numa_node");
  int node = -1;
  return (in >> node) ? node : -1;
}

// XIDs that report an application's fault, not the GPU's (NVIDIA's XID catalogue):
// 13 graphics engine exception, 31 memory page fault, 43 GPU stopped processing,
// 45 preemptive cleanup, 68 video processor exception.
bool ApplicationXid(unsigned long long xid) {
  return xid == 13 || xid == 31 || xid == 43 || xid == 45 || xid == 68;
}

}  // namespace

std::string FoundGpu::Links() const {
  if (std::none_of(nvlinks.begin(), nvlinks.end(), [](int n) { return n > 0; })) return "";
  std::string out;
  for (size_t i = 0; i < nvlinks.size(); ++i) out += (i ? "," : "") + std::to_string(nvlinks[i]);
  return out;
}

std::string Nvml::DefaultLibrary() {
  const char* env = std::getenv("SLUICE_NVML_LIBRARY");
  return env && *env ? env : "libnvidia-ml.so.1";
}

Expected<std::unique_ptr<Nvml>> Nvml::Open(const std::string& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return Unavailable(fmt::format("cannot load NVML ({}): {}", library, why ? why : "unknown"));
  }
  std::unique_ptr<Nvml> nvml(new Nvml());
  nvml->handle_ = handle;
  nvml->api_ = std::make_unique<Api>();
  Api& a = *nvml->api_;
  Resolve(handle, "nvmlInit_v2", &a.init);
  Resolve(handle, "nvmlShutdown", &a.shutdown);
  Resolve(handle, "nvmlErrorString", &a.error_string);
  Resolve(handle, "nvmlDeviceGetCount_v2", &a.count);
  Resolve(handle, "nvmlDeviceGetHandleByIndex_v2", &a.handle);
  Resolve(handle, "nvmlDeviceGetName", &a.name);
  Resolve(handle, "nvmlDeviceGetUUID", &a.uuid);
  Resolve(handle, "nvmlDeviceGetMinorNumber", &a.minor);
  Resolve(handle, "nvmlDeviceGetMemoryInfo", &a.memory);
  Resolve(handle, "nvmlDeviceGetPciInfo_v3", &a.pci);
  Resolve(handle, "nvmlDeviceGetCpuAffinity", &a.cpu_affinity);
  Resolve(handle, "nvmlDeviceGetMemoryAffinity", &a.memory_affinity);
  Resolve(handle, "nvmlDeviceGetTopologyCommonAncestor", &a.ancestor);
  Resolve(handle, "nvmlDeviceGetNvLinkState", &a.nvlink_state);
  Resolve(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &a.nvlink_remote);
  Resolve(handle, "nvmlDeviceGetTotalEccErrors", &a.ecc);
  Resolve(handle, "nvmlDeviceGetRetiredPagesPendingStatus", &a.retired_pending);
  Resolve(handle, "nvmlDeviceGetRemappedRows", &a.remapped_rows);
  Resolve(handle, "nvmlDeviceGetUtilizationRates", &a.utilization);
  Resolve(handle, "nvmlEventSetCreate", &a.event_set_create);
  Resolve(handle, "nvmlDeviceRegisterEvents", &a.register_events);
  Resolve(handle, "nvmlEventSetWait_v2", &a.event_wait);
  Resolve(handle, "nvmlEventSetFree", &a.event_set_free);
  for (auto [fn, symbol] : {std::pair<void*, const char*>{(void*)a.init, "nvmlInit_v2"},
                            {(void*)a.shutdown, "nvmlShutdown"},
                            {(void*)a.count, "nvmlDeviceGetCount_v2"},
                            {(void*)a.handle, "nvmlDeviceGetHandleByIndex_v2"},
                            {(void*)a.name, "nvmlDeviceGetName"},
                            {(void*)a.uuid, "nvmlDeviceGetUUID"},
                            {(void*)a.minor, "nvmlDeviceGetMinorNumber"},
                            {(void*)a.memory, "nvmlDeviceGetMemoryInfo"},
                            {(void*)a.pci, "nvmlDeviceGetPciInfo_v3"}}) {
    if (fn == nullptr) {
      ::dlclose(handle);
      nvml->handle_ = nullptr;
      return Unavailable(fmt::format("NVML ({}) has no {}", library, symbol));
    }
  }
  if (nvmlReturn_t rc = a.init(); rc != NVML_SUCCESS) {
    std::string why = a.Error(rc);
    ::dlclose(handle);
    nvml->handle_ = nullptr;
    return Unavailable(fmt::format("NVML ({}) failed to initialise: {}", library, why));
  }
  // XID errors arrive as events; a driver without them leaves that check out.
  if (a.event_set_create && a.register_events && a.event_wait &&
      a.event_set_create(&nvml->events_) == NVML_SUCCESS) {
    unsigned count = 0;
    a.count(&count);
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice_t dev = nullptr;
      if (a.handle(i, &dev) == NVML_SUCCESS) {
        a.register_events(dev, kNvmlEventTypeXidCriticalError, nvml->events_);
      }
    }
  }
  return nvml;
}

Nvml::~Nvml() {
  if (!handle_) return;
  if (events_ && api_->event_set_free) api_->event_set_free(events_);
  api_->shutdown();
  ::dlclose(handle_);
}

Expected<nvmlDevice_t> Nvml::Device(int index) {
  nvmlDevice_t dev = nullptr;
  if (nvmlReturn_t rc = api_->handle(static_cast<unsigned>(index), &dev); rc != NVML_SUCCESS) {
    return Unavailable(fmt::format("GPU {}: {}", index, api_->Error(rc)));
  }
  return dev;
}

Expected<std::vector<FoundGpu>> Nvml::Discover() {
  const Api& a = *api_;
  unsigned count = 0;
  if (nvmlReturn_t rc = a.count(&count); rc != NVML_SUCCESS) {
    return Unavailable("NVML cannot count the GPUs: " + a.Error(rc));
  }
  std::vector<FoundGpu> out(count);
  std::vector<nvmlDevice_t> devs(count);
  std::vector<nvmlPciInfo_t> pci(count);
  for (unsigned i = 0; i < count; ++i) {
    FoundGpu& g = out[i];
    g.index = static_cast<int>(i);
    ASSIGN_OR_RETURN(devs[i], Device(g.index));
    char buf[kNvmlUuidBufferSize] = {};
    auto need = [&](nvmlReturn_t rc, const char* what) -> Status {
      if (rc == NVML_SUCCESS) return Status::Ok();
      return Unavailable(fmt::format("GPU {}: cannot read its {}: {}", i, what, a.Error(rc)));
    };
    RETURN_IF_ERROR(need(a.name(devs[i], buf, sizeof buf), "name"));
    g.name = CString(buf, sizeof buf);
    g.type = GpuTypeFromName(g.name);
    RETURN_IF_ERROR(need(a.uuid(devs[i], buf, sizeof buf), "UUID"));
    g.uuid = CString(buf, sizeof buf);
    RETURN_IF_ERROR(need(a.minor(devs[i], &g.minor), "minor number"));
    nvmlMemory_t mem{};
    RETURN_IF_ERROR(need(a.memory(devs[i], &mem), "memory"));
    g.memory_mb = static_cast<int64_t>(mem.total / (1024 * 1024));
    RETURN_IF_ERROR(need(a.pci(devs[i], &pci[i]), "PCI address"));
    g.pci_bus_id = CString(pci[i].busId, sizeof pci[i].busId);
    std::vector<unsigned long> mask(16);  // 1,024 CPUs
    if (a.cpu_affinity && a.cpu_affinity(devs[i], mask.size(), mask.data()) == NVML_SUCCESS) {
      g.cpus = FormatIdRanges(MaskIds(mask));
    }
    std::vector<unsigned long> nodes(1);
    if (a.memory_affinity &&
        a.memory_affinity(devs[i], nodes.size(), nodes.data(), 0) == NVML_SUCCESS &&
        !MaskIds(nodes).empty()) {
      g.numa_node = MaskIds(nodes).front();
    } else {
      g.numa_node = SysfsNumaNode(g.pci_bus_id);
    }
  }
  // NVLinks: to another GPU (its PCI address) or to an NVSwitch (any other address);
  // two GPUs that both reach NVSwitches talk over as many links as the fewer of theirs.
  std::vector<std::vector<int>> direct(count, std::vector<int>(count, 0));
  std::vector<int> to_switch(count, 0);
  for (unsigned i = 0; i < count && a.nvlink_state && a.nvlink_remote; ++i) {
    for (unsigned link = 0; link < kNvmlNvLinkMaxLinks; ++link) {
      int active = NVML_FEATURE_DISABLED;
      if (a.nvlink_state(devs[i], link, &active) != NVML_SUCCESS) break;
      nvmlPciInfo_t remote{};
      if (active != NVML_FEATURE_ENABLED ||
          a.nvlink_remote(devs[i], link, &remote) != NVML_SUCCESS) {
        continue;
      }
      auto peer = std::find_if(pci.begin(), pci.end(),
                               [&](const nvmlPciInfo_t& p) { return PciKey(p) == PciKey(remote); });
      if (peer == pci.end()) {
        ++to_switch[i];
      } else if (peer - pci.begin() != static_cast<long>(i)) {
        ++direct[i][peer - pci.begin()];
      }
    }
  }
  for (unsigned i = 0; i < count; ++i) {
    for (unsigned j = 0; j < count; ++j) {
      int links = i == j ? -1 : direct[i][j] + std::min(to_switch[i], to_switch[j]);
      out[i].nvlinks.push_back(links);
      int level = NVML_TOPOLOGY_SYSTEM;
      if (i == j) {
        level = NVML_TOPOLOGY_INTERNAL;
      } else if (a.ancestor) {
        a.ancestor(devs[i], devs[j], &level);
      }
      out[i].paths.push_back(links > 0 ? "NV" + std::to_string(links) : LevelName(level));
    }
  }
  return out;
}

void Nvml::DrainXidEvents() {
  if (!events_) return;
  for (int n = 0; n < 1024; ++n) {
    nvmlEventData_t ev{};
    if (api_->event_wait(events_, &ev, 0) != NVML_SUCCESS) return;
    if (!(ev.eventType & kNvmlEventTypeXidCriticalError) || ApplicationXid(ev.eventData)) continue;
    unsigned count = 0;
    api_->count(&count);
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice_t dev = nullptr;
      if (api_->handle(i, &dev) == NVML_SUCCESS && dev == ev.device) {
        xid_[static_cast<int>(i)] = ev.eventData;
      }
    }
  }
}

std::string Nvml::DeviceProblem(int index, nvmlDevice_t dev) {
  const Api& a = *api_;
  nvmlMemory_t mem{};
  if (a.memory(dev, &mem) == NVML_ERROR_GPU_IS_LOST) return "fallen off the bus";
  unsigned long long ecc = 0;
  if (a.ecc &&
      a.ecc(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &ecc) == NVML_SUCCESS &&
      ecc > 0) {
    return fmt::format("uncorrectable ECC errors ({})", ecc);
  }
  int pending = NVML_FEATURE_DISABLED;
  if (a.retired_pending && a.retired_pending(dev, &pending) == NVML_SUCCESS &&
      pending == NVML_FEATURE_ENABLED) {
    return "retired pages pending a reset";
  }
  unsigned corrected = 0, uncorrected = 0, is_pending = 0, failed = 0;
  if (a.remapped_rows &&
      a.remapped_rows(dev, &corrected, &uncorrected, &is_pending, &failed) == NVML_SUCCESS) {
    if (failed) return "row remapping failed";
    if (is_pending) return "row remapping pending a reset";
  }
  if (auto it = xid_.find(index); it != xid_.end()) return fmt::format("XID {} error", it->second);
  return "";
}

std::vector<std::string> Nvml::CheckHealth() {
  std::lock_guard<std::mutex> lock(mu_);
  DrainXidEvents();
  unsigned count = 0;
  api_->count(&count);
  std::vector<std::string> out(count);
  for (unsigned i = 0; i < count; ++i) {
    auto dev = Device(static_cast<int>(i));
    out[i] = dev.ok() ? DeviceProblem(static_cast<int>(i), *dev) : "not reachable through NVML";
  }
  return out;
}

Expected<GpuSample> Nvml::Sample(int index) {
  ASSIGN_OR_RETURN(nvmlDevice_t dev, Device(index));
  GpuSample s;
  nvmlUtilization_t util{};
  if (api_->utilization) {
    if (nvmlReturn_t rc = api_->utilization(dev, &util); rc != NVML_SUCCESS) {
      return Unavailable(fmt::format("GPU {}: utilization: {}", index, api_->Error(rc)));
    }
  }
  nvmlMemory_t mem{};
  if (nvmlReturn_t rc = api_->memory(dev, &mem); rc != NVML_SUCCESS) {
    return Unavailable(fmt::format("GPU {}: memory: {}", index, api_->Error(rc)));
  }
  s.util_pct = static_cast<int>(util.gpu);
  s.mem_used_mb = static_cast<int64_t>(mem.used / (1024 * 1024));
  return s;
}

std::string GpuTypeFromName(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(word);
  std::erase_if(words, [](const std::string& w) {
    return w == "nvidia" || w == "tesla" || w == "geforce" || w == "quadro";
  });
  auto has_digit = [](const std::string& w) {
    return std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  for (size_t i = 0; i < words.size(); ++i) {
    if (!has_digit(words[i])) continue;
    bool all_digits = std::all_of(words[i].begin(), words[i].end(),
                                  [](unsigned char c) { return std::isdigit(c); });
    // "RTX 4090": the family word belongs to the model number.
    if (all_digits && i > 0 && !has_digit(words[i - 1])) return words[i - 1] + "_" + words[i];
    return words[i];
  }
  return words.empty() ? "gpu" : words.front();
}

}  // namespace sluice::gpu
