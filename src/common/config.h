// The cluster configuration: a subset of slurm.conf syntax plus gres.conf GPU lines.
//
// Syntax: Key=Value pairs, several per line; keys are case-insensitive; `#` starts a
// comment; `\` at the end of a line continues it; values may be "double quoted".
// Errors name the file and line: "sluice.conf:12: unknown key 'Foo'".
//
// Global keys: ClusterName (lowercased, as Slurm), SlurmctldHost (`name` or
// `name(addr)`; the first one is the primary; legacy ControlMachine/ControlAddr),
// SlurmctldPort, SlurmdPort, StateSaveLocation, SlurmdSpoolDir, KillWait,
// SlurmdTimeout, HeartbeatInterval, JobRequeue (0/1/yes/no), DefMemPerCPU, MinJobAge,
// MaxArraySize (0..4000001, default 1001),
// ClusterKeyFile, IdentSocket, GresTypes, GresConf (path of a gres.conf, relative to
// the config file's folder). Common Slurm keys with no meaning here (AuthType,
// SlurmUser, SelectType, ..., AccountingStorage*) are accepted and ignored; any other
// key is an error.
//
// NodeName=<hostlist> lines: CPUs, Sockets, CoresPerSocket, ThreadsPerCore,
// RealMemory and TmpDisk (MB, or sizes as --mem takes them: "64G"), Gres (gpu:N / gpu:type:N, comma
// lists), Feature(s) (comma list), NodeAddr (one address, or a hostlist with one address per node),
// Port (one port, or a bracket list "[7001-7004]" with one port per node, for several agents on one
// host), State (UNKNOWN, IDLE, DOWN, DRAIN, FAIL, FUTURE, CLOUD). Each name gets its
// own NodeConfig (at most kMaxConfigNodes in all, counted before a line is expanded).
// NodeName=DEFAULT sets defaults for later node lines. CPUs defaults
// to Sockets*CoresPerSocket*ThreadsPerCore; with CPUs alone, Sockets = CPUs /
// (CoresPerSocket*ThreadsPerCore). A node defined twice is an error.
//
// PartitionName=<name> lines: Nodes (hostlist of defined nodes, or ALL), Default=YES
// (the last default wins), MaxTime / DefaultTime (time formats of slurm_format.h;
// DefaultTime=NONE), State=UP|DOWN|DRAIN|INACTIVE, MaxNodes (number or UNLIMITED).
// PartitionName=DEFAULT sets defaults. Partitions may name nodes defined later.
// PriorityJobFactor (0..65533) and PriorityTier (0..65533) feed the priority plugin.
// AllowAccounts / DenyAccounts / AllowQos / AllowGroups (comma lists, ALL) restrict who may
// submit; OverSubscribe=EXCLUSIVE (also Shared=EXCLUSIVE) gives every job whole nodes;
// OverSubscribe=NO|YES|FORCE[:n] are accepted and mean NO here.
//
// Preemption: PreemptType=preempt/none|preempt/partition_prio|preempt/qos,
// PreemptMode=OFF|CANCEL|REQUEUE (SUSPEND/GANG: "not supported"), PreemptExemptTime=<time>;
// per partition PreemptMode= and GraceTime=<seconds>.
//
// Priority keys (priority/multifactor, see src/sched/priority.h): PriorityType
// (priority/basic [default] or priority/multifactor), PriorityWeightAge/Fairshare/
// JobSize/Partition/QOS (integers), PriorityWeightTRES (e.g. CPU=100,GRES/gpu=1000,
// kept as text), PriorityMaxAge and PriorityDecayHalfLife (time formats, default
// 7-0; a half-life of 0 disables decay), PriorityFavorSmall (YES/NO),
// TRESBillingWeights (e.g. CPU=1.0,Mem=0.25G,GRES/gpu=4.0; validated here).
//
// Account tree seed (config_accounts.cc; sacctmgr edits the controller's copy):
//   AccountName=<name> [Parent=<parent|root>] [Fairshare=<shares>]
//   UserName=<user> Account=<account> [Fairshare=<shares>]
// Parents must be defined before their children; "root" always exists.
//
// gres.conf lines (ApplyGresConf, the GresConf file, a gres.conf beside the config
// file read by LoadConfigFile, or a NodeName line with a Name= key inside the main
// file): NodeName=<hostlist> (absent: every node) Name=gpu [Type=h100]
// (Count=N | File=/dev/nvidia[0-7]) [Links=..] [Cores=..] [AutoDetect=nvml|off].
// AutoDetect=nvml (on a line of its own: every node; with NodeName=: those nodes) makes
// the node's agent find its GPUs through NVML (src/gpu/nvml.h) and check them against
// the configured ones.
// File expands as a hostlist into one GpuDef per device file. The first gres line
// naming a node replaces the GPUs of its Gres= value; further lines append. When
// the node's Gres= gave a GPU count, the gres.conf lines must add up to it. Lines
// for other gres names are ignored.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/preempt_mode.h"
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
  int port = 0;  // 0 = SlurmdPort
  int cpus = 1;
  int sockets = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;
  int64_t real_memory_mb = 1;
  int64_t tmp_disk_mb = 0;     // TmpDisk (MB)
  std::vector<GpuDef> gpus;    // from Gres=gpu[:type]:N and gres.conf; indices 0..N-1
  std::string gpu_autodetect;  // gres.conf AutoDetect: "nvml" or "" (off)
  std::vector<std::string> features;
  std::string state = "UNKNOWN";  // as configured, upper case (UNKNOWN, DOWN, ...)
};

struct PartitionConfig {
  std::string name;
  std::string nodes_expr;
  std::vector<std::string> nodes;
  bool is_default = false;
  int64_t max_time_min = -1;     // -1 = UNLIMITED
  int64_t default_time_min = 0;  // 0 = NONE (use max_time)
  bool up = true;
  int max_nodes = 0;            // 0 = UNLIMITED
  int priority_job_factor = 1;  // PriorityJobFactor
  int priority_tier = 1;        // PriorityTier
  // Access (comma lists as written; empty = no restriction). Deny* apply only when the
  // matching Allow* is empty, as in Slurm.
  std::vector<std::string> allow_accounts;  // AllowAccounts (ALL = empty)
  std::vector<std::string> deny_accounts;   // DenyAccounts
  std::vector<std::string> allow_qos;       // AllowQos (ALL = empty)
  std::vector<std::string> allow_groups;    // AllowGroups (ALL = empty)
  bool exclusive = false;                   // OverSubscribe=EXCLUSIVE: whole nodes per job
  // Preemption (config_preempt.cc): PreemptMode= (kCluster = the global one), GraceTime=
  // (seconds a victim of this partition gets between its signal and the kill).
  PreemptMode preempt_mode = PreemptMode::kCluster;
  int64_t grace_time_s = 0;
};

struct PriorityConfig {
  bool multifactor = false;  // PriorityType=priority/multifactor
  int64_t weight_age = 0;
  int64_t weight_fairshare = 0;
  int64_t weight_job_size = 0;
  int64_t weight_partition = 0;
  int64_t weight_qos = 0;
  std::string weight_tres;                // PriorityWeightTRES as written
  int64_t max_age_s = 7 * 86400;          // PriorityMaxAge
  int64_t decay_half_life_s = 7 * 86400;  // PriorityDecayHalfLife; 0 = no decay
  bool favor_small = false;
  std::string tres_billing_weights;  // TRESBillingWeights as written ("" = CPU count)
};

struct AccountDef {  // AccountName= line
  std::string name;
  std::string parent = "root";
  int64_t shares = 1;
};

struct UserAssocDef {  // UserName= line
  std::string user;
  std::string account;
  int64_t shares = 1;
};

// topology.conf: one SwitchName line. Children are nodes (a leaf switch) and/or switches.
struct SwitchConfig {
  std::string name;
  std::vector<std::string> nodes;     // expanded, configured node names
  std::vector<std::string> switches;  // child switch names
};

// Automatic requeue: MaxBatchRequeue bounds requeues after node loss or launch
// failure (then NODE_FAIL); a batch job ending with an exit code in requeue_exit is
// requeued, in requeue_exit_hold requeued and held (Slurm's RequeueExit/RequeueExitHold).
struct RequeueConfig {
  int max_batch_requeue = 5;
  std::set<int> requeue_exit;
  std::set<int> requeue_exit_hold;
};

// A database's settings (config_storage.cc), for accounting (AccountingStorage*) and for
// the controller's state (StateStorage*): Type, Host (name or socket dir), Port, User, Pass,
// Loc.
//   AccountingStorageType= accounting_storage/sqlite (default; accounting.db in
//     StateSaveLocation, or AccountingStorageLoc as the file) | accounting_storage/pgsql
//     (Loc = database name) | accounting_storage/slurmdbd (taken as sqlite: the built-in
//     store plays slurmdbd's role) | accounting_storage/none (sacct reports it disabled).
//   StateStorageType= (Sluice) state/sqlite (default; sluicectld.db in StateSaveLocation) |
//     state/pgsql (Loc = database name, default slurm_state_db): what two or three
//     controllers share for high availability (docs/high-availability.md).
// Any other type is an error.
struct StorageConfig {
  std::string type;
  std::string host;
  int port = 0;
  std::string user;
  std::string pass;
  std::string loc;
};

inline StorageConfig StorageOfType(std::string type) {
  StorageConfig s;
  s.type = std::move(type);
  return s;
}

// One SlurmctldHost line: `name` or `name(addr)`; the first is the primary, the others
// its backups, in order.
struct CtldHost {
  std::string name;
  std::string addr;
};

inline constexpr size_t kMaxConfigNodes = 65536;

struct Config {
  std::string path;  // file it was read from
  std::string cluster_name = "sluice";
  std::string ctld_debug;               // SlurmctldDebug: the controller's log level ("" = info)
  std::string ctld_host = "127.0.0.1";  // address (the `addr` of `name(addr)`)
  std::string ctld_host_name;           // the `name` of SlurmctldHost (empty if not given)
  std::vector<CtldHost> ctld_hosts;     // every SlurmctldHost line (empty if none)
  int ctld_timeout_s = 0;               // SlurmctldTimeout (0: unset; the lease default)
  int ctld_port = 6817;
  int slurmd_port = 6818;
  std::string state_save_location = "/var/lib/sluice/state";
  std::string slurmd_spool_dir = "/var/lib/sluice/spool/%n";  // %n = node name
  std::string cluster_key_file;  // default filled in: <StateSaveLocation>/cluster.key
  std::string ident_socket;      // default filled in: <StateSaveLocation>/ident.sock
  std::string gres_conf;         // resolved path of the gres.conf read, if any
  std::string cgroup_conf;       // path of the cgroup.conf read, if any
  // cgroup.conf ConstrainDevices=yes: a job's (and step's) processes can open only the
  // device files of their own GPUs (stepd/device_fence.h).
  bool constrain_devices = false;
  int kill_wait_s = 30;
  int slurmd_timeout_s = 300;
  // How long the controller waits for an agent's answer to one call (launch, signal, step
  // launch) before it counts as failed; Slurm's MessageTimeout, default 10 s.
  int message_timeout_s = 10;
  int heartbeat_interval_s = 0;  // 0 = derive: see HeartbeatIntervalS()
  int min_job_age_s = 300;
  int metrics_port = 0;       // MetricsPort: /metrics over HTTP on the controller's host; 0 = off
  int rest_port = 0;          // RestPort: sluicerestd's default listening port; 0 = none
  int max_array_size = 1001;  // MaxArraySize: task ids 0..N-1 (0 = no arrays; at most 4000001)
  bool job_requeue = true;
  int64_t def_mem_per_cpu_mb = 0;  // 0 = whole-node memory is not reserved by default
  std::vector<std::string> gres_types;
  std::vector<NodeConfig> nodes;
  // Name -> position in `nodes`, filled by ParseConfig. FindNode checks each hit, so an
  // index that is missing or out of date (a Config built or edited by hand) costs a
  // scan, never a wrong answer.
  std::unordered_map<std::string, size_t> node_index;
  std::vector<PartitionConfig> partitions;
  std::map<std::string, std::string> raw;  // global key=value as read, canonical key names
  PriorityConfig priority;
  std::vector<AccountDef> accounts;  // interim account tree (config order)
  std::vector<UserAssocDef> user_assocs;
  bool topology_tree = false;          // TopologyPlugin=topology/tree
  std::string topology_conf;           // resolved path of the topology.conf read
  std::vector<SwitchConfig> switches;  // topology.conf, file order
  // MaxBatchRequeue=, RequeueExit=, RequeueExitHold= (config_requeue.cc).
  RequeueConfig requeue;
  // Node health and per-job node scripts (run by the agent / stepd as root).
  std::string health_check_program;  // HealthCheckProgram ("" = none)
  int health_check_interval_s = 0;   // HealthCheckInterval (0 = only at agent start)
  // HealthCheckNodeState as bits: which nodes run the periodic check.
  enum HealthState : unsigned {
    kHealthIdle = 1,
    kHealthAlloc = 2,
    kHealthMixed = 4,
    kHealthAny = 7,
    kHealthCycle = 8
  };
  unsigned health_check_node_state = kHealthAny;
  // The agents' GPU health check (AutoDetect=nvml nodes; src/gpu/nvml.h CheckHealth):
  // every GpuHealthCheckInterval seconds (0 = never); a failing GPU drains its node with
  // a reason naming it (GpuHealthAction=DRAIN), or only that GPU stops taking jobs
  // (WITHHOLD). Either way the jobs on it are treated as on a failed node (requeued).
  int gpu_health_check_interval_s = 60;
  // JobAcctGatherFrequency task=N: how often a job's GPUs are sampled (AutoDetect=nvml
  // nodes; sacct TRESUsageInAve/Max gres/gpuutil, gres/gpumem). 0 = never.
  int acct_gather_task_s = 30;
  bool gpu_health_withhold = false;
  std::string prolog;               // Prolog ("" = none)
  std::string epilog;               // Epilog ("" = none)
  int prolog_epilog_timeout_s = 0;  // PrologEpilogTimeout (0 = none)
  // Preemption (config_preempt.cc): PreemptType=, PreemptMode= (cluster-wide; partitions
  // and QOS may override), PreemptExemptTime= (a job running less than this is not
  // preempted; -1 = none).
  PreemptType preempt_type = PreemptType::kNone;
  PreemptMode preempt_mode = PreemptMode::kOff;
  int64_t preempt_exempt_time_s = -1;
  StorageConfig accounting = StorageOfType("accounting_storage/sqlite");  // AccountingStorage*
  StorageConfig state_storage = StorageOfType("state/sqlite");             // StateStorage*

  const NodeConfig* FindNode(std::string_view name) const;
  const PartitionConfig* FindPartition(std::string_view name) const;
  const PartitionConfig* DefaultPartition() const;  // nullptr if none is Default=YES
  // heartbeat_interval_s, or slurmd_timeout_s / 3 clamped to [1, 30].
  int HeartbeatIntervalS() const;
  // The controllers, primary first: ctld_hosts with ControlAddr applied to the primary, or
  // the one controller ctld_host when there is no SlurmctldHost line.
  std::vector<CtldHost> Controllers() const;
};

// Parses text (`path` is used in messages and to resolve a relative GresConf, which is
// read from disk).
Expected<Config> ParseConfig(std::string_view text, std::string_view path);
// Reads and parses `path`; then, if no GresConf key was given, applies the gres.conf
// in the same folder when one exists (as Slurm does).
Expected<Config> LoadConfigFile(const std::string& path);
// topology.conf text applied onto an already parsed config: SwitchName=<name>
// [Nodes=<hostlist>] [Switches=<hostlist of switch names>] [LinkSpeed=N]. Errors name the
// file and line (unknown nodes or switches, a node under two switches, a switch defined
// twice, cycles). LoadConfigFile reads the topology.conf beside the config when
// TopologyPlugin=topology/tree.
Status ApplyTopologyConf(std::string_view text, std::string_view path, Config* config);
// gres.conf lines applied onto an already parsed config.
Status ApplyGresConf(std::string_view text, std::string_view path, Config* config);
// cgroup.conf (LoadConfigFile reads the one beside the config file): ConstrainDevices.
Status ApplyCgroupConf(std::string_view text, std::string_view path, Config* config);

// $SLUICE_CONF, else /etc/sluice/sluice.conf.
std::string DefaultConfigPath();

}  // namespace sluice
