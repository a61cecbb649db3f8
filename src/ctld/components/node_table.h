// NodeTable: the controller's view of every configured node: configuration, admin
// flags (drain/down + reason, persisted), liveness (registered since this controller
// started, last heartbeat), the agent's address, and which CPUs/GPUs/memory running
// jobs hold. Builds the scheduler's ClusterSnapshot and the NodeInfo views.
// Owner-thread only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/config.h"
#include "node.pb.h"
#include "sched/types.h"
#include "storage/state_store.h"
#include "types.pb.h"

namespace sluice::ctld {

struct NodeRuntime {
  NodeConfig cfg;
  storage::NodeStateRecord admin;  // persisted drain/down flags + reason
  std::vector<std::string> partitions;
  bool registered = false;               // registered since this controller started
  bool responding = true;                // false once heartbeats stop (DOWN "Not responding")
  int64_t last_heartbeat_ms = 0;         // or controller start time before registration
  std::optional<int64_t> clock_skew_ms;  // the agent's clock minus ours, at its last heartbeat
  int64_t boot_time = 0;
  std::string version;  // the agent's Sluice version ("" from older agents)
  int protocol = 0;     // the agent's protocol version (rpc/protocol.h; 0: not registered)
  std::string addr;     // agent address (reported, else configured)
  int port = 0;
  std::vector<bool> cpu_used;
  int64_t mem_used_mb = 0;
  std::vector<bool> gpu_used;               // parallel to cfg.gpus
  std::vector<std::vector<int>> gpu_links;  // parallel to cfg.gpus: affinity by GPU index
  std::vector<GpuInfo> found_gpus;          // as the agent found them (AutoDetect=nvml), else empty
  std::vector<std::string> gpu_faults;  // parallel to cfg.gpus: the agent's GPU health ("" = fine)
  int leaf_switch = -1;                 // index into the topology's switches
  int exclusive_jobs = 0;
  std::set<int64_t> jobs;                // jobs holding resources here
  int64_t health_seq = 0;                // last NodeHealth.seq acted on (health_ops.cc)
  int64_t session = 0;                   // of the agent's last registration (RegisterNodeReply)
  std::vector<SignalJobRequest> unsent;  // kills/cancels to send again once it answers

  // CPUs held by jobs (all of them while an exclusive job runs) and GPUs held.
  int AllocatedCpus() const {
    return exclusive_jobs > 0
               ? cfg.cpus
               : static_cast<int>(std::count(cpu_used.begin(), cpu_used.end(), true));
  }
  int AllocatedGpus() const {
    return static_cast<int>(std::count(gpu_used.begin(), gpu_used.end(), true));
  }
  // Usable by the scheduler for new jobs.
  bool Available() const { return registered && responding && !admin.down && !admin.drain; }
  bool Down() const { return admin.down || !responding; }
};

class NodeTable {
 public:
  explicit NodeTable(const Config& config);

  NodeRuntime* Find(const std::string& name);
  const NodeRuntime* Find(const std::string& name) const;
  std::vector<NodeRuntime>& nodes() { return nodes_; }
  const std::vector<NodeRuntime>& nodes() const { return nodes_; }

  // Rebuilds the table from `next` (scontrol reconfigure). A node kept keeps what the
  // controller learnt of it: admin flags, liveness, its agent's report and GPU health.
  // What jobs hold is cleared (the caller allocates the running jobs again). A kept node
  // whose resources changed (idle: work_at_risk.h) must register again to be used; their
  // names are returned.
  std::vector<std::string> Reconfigure(const Config& next);

  // Marks/clears the resources `job` holds (its alloc) as used. Unknown nodes are skipped.
  void Allocate(const JobInfo& job, bool exclusive);
  void Release(const JobInfo& job, bool exclusive);

  // Snapshot of current usage. `all_empty`: every node empty and available (for
  // submission-time feasibility checks).
  sched::ClusterSnapshot Snapshot(bool all_empty) const;

  NodeInfo ToInfo(const NodeRuntime& n, int64_t now) const;

  // The GPUs the node's agent registered: when as many as configured, what it found
  // (links, closest CPUs, device files; the type where the configuration gives none)
  // replaces the configured values and feeds GPU placement. True when it did.
  bool AdoptFoundGpus(NodeRuntime* n, const std::vector<GpuInfo>& reported);

 private:
  std::vector<NodeRuntime> nodes_;
  std::vector<sched::Switch> switches_;  // topology.conf tree (empty = flat)
  std::map<std::string, size_t> index_;
};

}  // namespace sluice::ctld
