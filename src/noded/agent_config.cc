#include "noded/agent_config.h"

#include <fstream>

#include "node_common/node_lease.h"
#include "noded/gpu_detect.h"

namespace sluice {
namespace {

std::vector<GpuInfo> FakeGpus(const NodeConfig& node, int fake_gpus) {
  std::vector<GpuInfo> out;
  if (fake_gpus < 0) {
    for (const GpuDef& d : node.gpus) out.push_back(ConfiguredGpu(d));
    return out;
  }
  std::string type = node.gpus.empty() ? "" : node.gpus[0].type;
  for (int i = 0; i < fake_gpus; ++i) {
    GpuInfo g;
    g.set_index(i);
    g.set_type(type);
    out.push_back(g);
  }
  return out;
}

}  // namespace

std::string ExpandSpoolDir(const std::string& pattern, const std::string& node_name) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'n') {
      out += node_name;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

int64_t ReadBootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  int64_t v = 0;
  while (in >> key) {
    if (key == "btime" && (in >> v)) return v;
  }
  return 0;
}

Expected<AgentSetup> AgentSetupFromConfig(const Config& config, const std::string& node_name,
                                          int fake_gpus) {
  const NodeConfig* node = nullptr;
  for (const NodeConfig& n : config.nodes) {
    if (n.name == node_name) node = &n;
  }
  if (node == nullptr) {
    return NotFound("node " + node_name + " is not in the configuration " + config.path);
  }
  AgentSetup s;
  AgentOptions& o = s.options;
  o.node_name = node_name;
  o.addr = node->addr;
  o.port = node->port > 0 ? node->port : config.slurmd_port;
  o.cpus = node->cpus;
  o.real_memory_mb = node->real_memory_mb;
  if (node->gpu_autodetect == "nvml" && fake_gpus < 0) {
    DetectedGpus found = DetectGpus(*node);
    o.gpus = std::move(found.gpus);
    o.gres_error = std::move(found.gres_error);
    s.nvml = std::move(found.nvml);
    if (s.nvml) o.gpu_sample_interval_s = config.acct_gather_task_s;
  } else {
    o.gpus = FakeGpus(*node, fake_gpus);
  }
  o.boot_time = ReadBootTime();
  o.heartbeat_interval_ms =
      HeartbeatIntervalMs(config.heartbeat_interval_s, config.slurmd_timeout_s);
  o.cluster_name = config.cluster_name;
  o.conf_path = config.path;
  o.ctld_host = config.ctld_host;
  o.ctld_port = config.ctld_port;
  o.def_mem_per_cpu_mb = config.def_mem_per_cpu_mb;
  o.constrain_devices = config.constrain_devices;
  o.prolog = config.prolog;
  o.epilog = config.epilog;
  o.prolog_epilog_timeout_s = config.prolog_epilog_timeout_s;
  s.spool_dir = ExpandSpoolDir(config.slurmd_spool_dir, node_name);
  o.agent_socket = s.spool_dir + "/agent.sock";
  o.relay_socket = s.spool_dir + "/srun.sock";
  o.fence_lease = NodeLeasePath(s.spool_dir);
  o.slurmd_timeout_ms = int64_t{config.slurmd_timeout_s} * 1000;
  s.key_file = config.cluster_key_file.empty() ? config.state_save_location + "/cluster.key"
                                               : config.cluster_key_file;
  return s;
}

}  // namespace sluice
