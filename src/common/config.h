// The cluster configuration: a subset of slurm.conf syntax (+ gres.conf GPU lines).
//   ClusterName=, SlurmctldHost=, SlurmctldPort=, SlurmdPort=, StateSaveLocation=,
//   SlurmdSpoolDir=, KillWait=, SlurmdTimeout=, GresTypes=, JobRequeue=, DefMemPerCPU=,
//   NodeName=... (CPUs, Sockets, CoresPerSocket, ThreadsPerCore, RealMemory, Gres,
//   Feature, NodeAddr, Port, State), PartitionName=... (Nodes, Default, MaxTime,
//   DefaultTime, State, MaxNodes), and gres.conf lines (NodeName, Name, Type, Count |
//   File, Links, Cores) either in a separate file or inline with a "Gres:" prefix-free
//   `GresConf=path`. Keys are case-insensitive; `#` starts a comment; `\` at line end
//   continues. NodeName/PartitionName accept hostlist expressions. Unknown keys and
//   malformed lines are errors that name the file and line: "sluice.conf:12: unknown
//   key 'Foo'".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

struct GpuDef {
  int index = 0;
  std::string type;   // "h100", may be empty
  std::string file;   // /dev/nvidia0, may be empty
  std::string links;  // gres.conf Links=, may be empty
  std::string cores;  // gres.conf Cores=, may be empty
};

struct NodeConfig {
  std::string name;
  std::string addr = "127.0.0.1";
  int port = 0;               // 0 = SlurmdPort
  int cpus = 1;
  int sockets = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;
  int64_t real_memory_mb = 1;
  std::vector<GpuDef> gpus;   // from Gres=gpu[:type]:N and gres.conf; indices 0..N-1
  std::vector<std::string> features;
  std::string state;          // as configured (UNKNOWN, DOWN, ...)
};

struct PartitionConfig {
  std::string name;
  std::string nodes_expr;
  std::vector<std::string> nodes;
  bool is_default = false;
  int64_t max_time_min = -1;      // -1 = UNLIMITED
  int64_t default_time_min = 0;   // 0 = NONE (use max_time)
  bool up = true;
  int max_nodes = 0;              // 0 = UNLIMITED
};

struct Config {
  std::string path;               // file it was read from
  std::string cluster_name = "sluice";
  std::string ctld_host = "127.0.0.1";
  int ctld_port = 6817;
  int slurmd_port = 6818;
  std::string state_save_location = "/var/lib/sluice/state";
  std::string slurmd_spool_dir = "/var/lib/sluice/spool/%n";  // %n = node name
  std::string cluster_key_file;   // default: <StateSaveLocation>/cluster.key
  std::string ident_socket;       // default: <StateSaveLocation>/ident.sock
  int kill_wait_s = 30;
  int slurmd_timeout_s = 300;
  int heartbeat_interval_s = 0;   // 0 = derive from slurmd_timeout (timeout / 3, max 30)
  bool job_requeue = true;
  int64_t def_mem_per_cpu_mb = 0; // 0 = whole-node memory is not reserved by default
  std::vector<std::string> gres_types;
  std::vector<NodeConfig> nodes;
  std::vector<PartitionConfig> partitions;
  std::map<std::string, std::string> raw;  // every key=value as read (scontrol show config)

  const NodeConfig* FindNode(std::string_view name) const;
  const PartitionConfig* FindPartition(std::string_view name) const;
  const PartitionConfig* DefaultPartition() const;
};

// Parses text (`path` is only used in messages and to resolve a relative GresConf).
Expected<Config> ParseConfig(std::string_view text, std::string_view path);
Expected<Config> LoadConfigFile(const std::string& path);
// gres.conf lines applied onto an already parsed config.
Status ApplyGresConf(std::string_view text, std::string_view path, Config* config);

// $SLUICE_CONF, else /etc/sluice/sluice.conf.
std::string DefaultConfigPath();

}  // namespace sluice
