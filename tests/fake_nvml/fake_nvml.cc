// A fake NVML for tests: a shared library exporting the NVML entry points Sluice uses
// (src/gpu/nvml_abi.h), loaded through the same dlopen path as the real one
// (SLUICE_NVML_LIBRARY). It serves the machine described by the file that
// SLUICE_FAKE_NVML_FILE names, read again whenever the file changes (a test breaks a GPU
// by rewriting it). Lines (# comments):
//   gpu <index> name="NVIDIA H100 80GB HBM3" uuid=GPU-.. minor=N memory_mb=N
//       pci=00000000:18:00.0 cpus=0-15 numa=N [util=PCT] [mem_used_mb=N]
//   nvlink <gpu> <gpu|switch> <links>    links between two GPUs, or from a GPU to NVSwitch
//   pcie <gpu> <gpu> PIX|PXB|PHB|NODE|SYS  their closest common ancestor (default: NODE on
//                                           the same numa node, else SYS)
//   ecc <gpu> <count>                     uncorrectable volatile ECC errors
//   retired_pending <gpu> | remap_pending <gpu> | remap_failed <gpu> | lost <gpu>
//   xid <gpu> <xid>                       a critical XID event, delivered once
//   init_fails                            nvmlInit_v2 answers DRIVER_NOT_LOADED
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/nvml_abi.h"

namespace {

struct FakeGpu {
  std::string name, uuid, pci, cpus;
  unsigned minor = 0;
  unsigned long long memory_mb = 0, mem_used_mb = 0;
  unsigned util = 0;
  int numa = 0;
  unsigned long long ecc = 0;
  bool retired_pending = false, remap_pending = false, remap_failed = false, lost = false;
  std::vector<std::string> link_peers;  // per NVLink: a GPU's PCI address, or the switch's
};

struct Machine {
  std::vector<FakeGpu> gpus;
  std::map<std::pair<int, int>, int> levels;
  std::vector<std::pair<int, unsigned long long>> xids;
  bool init_fails = false;
};

constexpr const char* kSwitchPci = "00000000:C0:00.0";

std::mutex mu;
Machine machine;
std::string loaded_stamp;
size_t xids_delivered = 0;

int LevelOf(const std::string& s) {
  if (s == "PIX") return NVML_TOPOLOGY_SINGLE;
  if (s == "PXB") return NVML_TOPOLOGY_MULTIPLE;
  if (s == "PHB") return NVML_TOPOLOGY_HOSTBRIDGE;
  if (s == "NODE") return NVML_TOPOLOGY_NODE;
  return NVML_TOPOLOGY_SYSTEM;
}

FakeGpu* At(Machine& m, int i) {
  if (i < 0) return nullptr;
  if (static_cast<size_t>(i) >= m.gpus.size()) m.gpus.resize(i + 1);
  return &m.gpus[i];
}

void ParseGpu(std::istringstream& in, FakeGpu* g) {
  std::string rest;
  std::getline(in, rest);
  size_t p = 0;
  while (p < rest.size()) {
    while (p < rest.size() && rest[p] == ' ') ++p;
    size_t eq = rest.find('=', p);
    if (eq == std::string::npos) break;
    std::string key = rest.substr(p, eq - p), value;
    p = eq + 1;
    if (p < rest.size() && rest[p] == '"') {
      size_t close = rest.find('"', p + 1);
      value = rest.substr(p + 1, close - p - 1);
      p = close == std::string::npos ? rest.size() : close + 1;
    } else {
      size_t sp = rest.find(' ', p);
      value = rest.substr(p, sp == std::string::npos ? std::string::npos : sp - p);
      p = sp == std::string::npos ? rest.size() : sp;
    }
    if (key == "name") g->name = value;
    if (key == "uuid") g->uuid = value;
    if (key == "pci") g->pci = value;
    if (key == "cpus") g->cpus = value;
    if (key == "minor") g->minor = std::stoul(value);
    if (key == "memory_mb") g->memory_mb = std::stoull(value);
    if (key == "mem_used_mb") g->mem_used_mb = std::stoull(value);
    if (key == "util") g->util = std::stoul(value);
    if (key == "numa") g->numa = std::stoi(value);
  }
}

Machine Parse(std::istream& file) {
  Machine m;
  std::vector<std::tuple<int, std::string, int>> links;
  std::string line;
  while (std::getline(file, line)) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::string kind;
    if (!(in >> kind)) continue;
    int a = -1;
    if (kind == "init_fails") m.init_fails = true;
    if (kind == "init_fails" || !(in >> a) || !At(m, a)) continue;
    FakeGpu* g = At(m, a);
    if (kind == "gpu") ParseGpu(in, g);
    if (kind == "ecc") in >> g->ecc;
    if (kind == "retired_pending") g->retired_pending = true;
    if (kind == "remap_pending") g->remap_pending = true;
    if (kind == "remap_failed") g->remap_failed = true;
    if (kind == "lost") g->lost = true;
    if (kind == "xid") {
      unsigned long long xid = 0;
      in >> xid;
      m.xids.push_back({a, xid});
    }
    std::string peer, level;
    int count = 0;
    if (kind == "nvlink" && (in >> peer >> count)) links.push_back({a, peer, count});
    if (kind == "pcie") {
      int b = -1;
      if (in >> b >> level) m.levels[{a, b}] = m.levels[{b, a}] = LevelOf(level);
    }
  }
  for (auto& [a, peer, count] : links) {
    bool to_switch = peer == "switch";
    int b = to_switch ? -1 : std::atoi(peer.c_str());
    for (int k = 0; k < count; ++k) {
      m.gpus[a].link_peers.push_back(to_switch ? kSwitchPci : At(m, b)->pci);
      if (!to_switch) m.gpus[b].link_peers.push_back(m.gpus[a].pci);
    }
  }
  return m;
}

// Reads the file again when it changed; false when there is none.
bool Refresh() {
  const char* path = std::getenv("SLUICE_FAKE_NVML_FILE");
  struct stat st {};
  if (!path || ::stat(path, &st) != 0) return false;
  std::string stamp = std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
                      "/" + std::to_string(st.st_size);
  if (stamp != loaded_stamp) {
    std::ifstream in(path);
    machine = Parse(in);
    loaded_stamp = stamp;
  }
  return true;
}

FakeGpu* Dev(nvmlDevice_t d) {
  auto i = reinterpret_cast<uintptr_t>(d);
  if (i == 0 || i > machine.gpus.size()) return nullptr;
  return &machine.gpus[i - 1];
}

void FillPci(const std::string& bus_id, nvmlPciInfo_t* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->busId, sizeof p->busId, "%s", bus_id.c_str());
  std::snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%s",
                bus_id.size() > 12 ? bus_id.c_str() + bus_id.size() - 12 : bus_id.c_str());
  std::sscanf(bus_id.c_str(), "%x:%x:%x", &p->domain, &p->bus, &p->device);
}

void SetBits(const std::string& list, unsigned size, unsigned long* mask) {
  std::memset(mask, 0, size * sizeof(unsigned long));
  std::istringstream in(list);
  std::string item;
  constexpr unsigned kBits = sizeof(unsigned long) * 8;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    unsigned lo = std::stoul(item), hi = lo;
    if (size_t dash = item.find('-'); dash != std::string::npos)
      hi = std::stoul(item.substr(dash + 1));
    for (unsigned c = lo; c <= hi && c / kBits < size; ++c) mask[c / kBits] |= 1UL << (c % kBits);
  }
}

#define LOCKED_DEVICE(d)                      \
  std::lock_guard<std::mutex> lock(mu);       \
  Refresh();                                  \
  FakeGpu* g = Dev(d);                        \
  if (!g) return NVML_ERROR_INVALID_ARGUMENT; \
  if (g->lost) return NVML_ERROR_GPU_IS_LOST

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  std::lock_guard<std::mutex> lock(mu);
  if (!Refresh()) return NVML_ERROR_DRIVER_NOT_LOADED;
  return machine.init_fails ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_SUCCESS;
}
nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }
const char* nvmlErrorString(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    default:
      return "Unknown Error";
  }
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  std::lock_guard<std::mutex> lock(mu);
  Refresh();
  *count = static_cast<unsigned>(machine.gpus.size());
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* dev) {
  std::lock_guard<std::mutex> lock(mu);
  Refresh();
  if (index >= machine.gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *dev = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(index) + 1);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* buf, unsigned int size) {
  LOCKED_DEVICE(d);
  if (g->name.size() + 1 > size) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::snprintf(buf, size, "%s", g->name.c_str());
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* buf, unsigned int size) {
  LOCKED_DEVICE(d);
  if (g->uuid.size() + 1 > size) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::snprintf(buf, size, "%s", g->uuid.c_str());
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int* minor) {
  LOCKED_DEVICE(d);
  *minor = g->minor;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* mem) {
  LOCKED_DEVICE(d);
  mem->total = g->memory_mb << 20;
  mem->used = g->mem_used_mb << 20;
  mem->free = mem->total - mem->used;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  LOCKED_DEVICE(d);
  FillPci(g->pci, pci);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t d, unsigned int size, unsigned long* set) {
  LOCKED_DEVICE(d);
  SetBits(g->cpus, size, set);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t d, unsigned int size, unsigned long* set,
                                         unsigned int scope) {
  LOCKED_DEVICE(d);
  SetBits(std::to_string(g->numa), size, set);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int* level) {
  LOCKED_DEVICE(a);
  FakeGpu* other = Dev(b);
  if (!other) return NVML_ERROR_INVALID_ARGUMENT;
  int ia = static_cast<int>(g - machine.gpus.data()),
      ib = static_cast<int>(other - machine.gpus.data());
  auto it = machine.levels.find({ia, ib});
  *level = it != machine.levels.end() ? it->second
           : g->numa == other->numa   ? NVML_TOPOLOGY_NODE
                                      : NVML_TOPOLOGY_SYSTEM;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int* active) {
  LOCKED_DEVICE(d);
  if (link >= kNvmlNvLinkMaxLinks) return NVML_ERROR_INVALID_ARGUMENT;
  if (g->link_peers.empty()) return NVML_ERROR_NOT_SUPPORTED;
  *active = link < g->link_peers.size() ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link,
                                                 nvmlPciInfo_t* pci) {
  LOCKED_DEVICE(d);
  if (link >= g->link_peers.size()) return NVML_ERROR_INVALID_ARGUMENT;
  FillPci(g->link_peers[link], pci);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
                                         unsigned long long* count) {
  LOCKED_DEVICE(d);
  *count = type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED ? g->ecc : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int* pending) {
  LOCKED_DEVICE(d);
  *pending = g->retired_pending ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int* corrected,
                                       unsigned int* uncorrected, unsigned int* pending,
                                       unsigned int* failed) {
  LOCKED_DEVICE(d);
  *corrected = *uncorrected = 0;
  *pending = g->remap_pending;
  *failed = g->remap_failed;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* util) {
  LOCKED_DEVICE(d);
  util->gpu = g->util;
  util->memory = g->util;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  *set = reinterpret_cast<nvmlEventSet_t>(static_cast<uintptr_t>(1));
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t) {
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t, nvmlEventData_t* data, unsigned int timeout_ms) {
  std::lock_guard<std::mutex> lock(mu);
  Refresh();
  if (xids_delivered >= machine.xids.size()) return NVML_ERROR_TIMEOUT;
  auto [gpu, xid] = machine.xids[xids_delivered++];
  std::memset(data, 0, sizeof *data);
  data->device = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(gpu) + 1);
  data->eventType = kNvmlEventTypeXidCriticalError;
  data->eventData = xid;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t) { return NVML_SUCCESS; }

}  // extern "C"
