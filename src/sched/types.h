// The scheduler's view of the world: a cluster snapshot (nodes with their free and used
// resources), job requests normalised per node, and the plan it returns. Plain data;
// no I/O. The controller builds these from its state; the simulator from traces.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/preempt_mode.h"
#include "sched/limit_types.h"

namespace sluice::sched {

struct Gpu {
  int index = 0;
  std::string type;
  bool used = false;
  // Affinity to the node's other GPUs, by their index (links[j] for GPU index j; missing =
  // 0): higher = better connected (e.g. NVLink count). Empty = no topology known.
  std::vector<int> links;
};

struct Node {
  std::string name;
  int cpus = 0;
  int64_t mem_mb = 0;
  std::vector<Gpu> gpus;
  std::vector<std::string> features;
  bool available = true;       // up, responding, not drained
  std::vector<bool> cpu_used;  // size == cpus (empty = none used)
  int64_t mem_used_mb = 0;
  bool exclusive_held = false;  // a running --exclusive job owns the node
  int running_jobs = 0;
  int leaf_switch = -1;  // index into ClusterSnapshot::switches (-1 = none)
};

// A network switch of a tree topology (topology.conf). Nodes hang off leaf switches.
struct Switch {
  std::string name;
  int parent = -1;  // index into ClusterSnapshot::switches; -1 = a root
};

struct NodeShare {
  std::string node;
  std::vector<int> cpu_ids;
  int64_t mem_mb = 0;
  std::vector<int> gpu_ids;
  int ntasks = 0;
  bool operator==(const NodeShare&) const = default;
};

// A job that holds resources now and is expected to release them at `end_time`
// (start + time limit; 0 = unknown/unlimited). Backfill plans around these.
struct RunningJob {
  int64_t job_id = 0;
  int64_t end_time = 0;
  bool exclusive = false;
  std::vector<NodeShare> alloc;
  // Preemption (sched/preempt.h): who may preempt it and which victims go first.
  int64_t priority = 0;
  int64_t start_time = 0;
  int priority_tier = 0;         // its partition's PriorityTier
  std::string qos{};             // its QOS ("" = none)
  bool preempt_off = false;      // its PreemptMode is OFF: never a victim
  bool being_preempted = false;  // already a victim (grace period / being killed)
  // When the plan expects it to end (a runtime prediction, sched/runtime_predictor.h;
  // 0 = end_time). Planning only: the job still ends at end_time at the latest.
  int64_t planned_end = 0;
};

// A QOS's preemption rule (PreemptType=preempt/qos): the QOS names its jobs may preempt,
// the mode and grace time its own jobs get as victims (kCluster = the global mode).
struct PreemptRule {
  std::set<std::string> preempts;
  PreemptMode mode = PreemptMode::kCluster;
  int64_t grace_s = 0;
};
using PreemptRules = std::map<std::string, PreemptRule>;  // by QOS name

struct PreemptSettings {
  PreemptType type = PreemptType::kNone;
  PreemptRules rules;     // preempt/qos
  int64_t exempt_s = -1;  // PreemptExemptTime: younger jobs are not victims (-1 = none)
};

// An advance reservation: `nodes` are held for its members during [start, end). Jobs not
// in it may not hold those nodes at any time of the window (they wait); jobs in it
// (JobRequest.reservation == name) run only on its nodes and start inside the window.
struct ReservationWindow {
  std::string name;
  int64_t start = 0;
  int64_t end = 0;  // exclusive
  std::vector<std::string> nodes;
  bool maint = false;  // MAINT: waiting jobs say "Reserved for maintenance"
};

struct ClusterSnapshot {
  std::vector<Node> nodes;                      // in configuration order (first-fit order)
  std::vector<RunningJob> running;              // already reflected in the nodes' used resources
  std::vector<ReservationWindow> reservations;  // unordered; windows ending <= now are ignored
  std::vector<Switch> switches;                 // empty = flat network
  LimitsInput limits;       // association/QOS limits (empty = none; assoc_limits.h)
  PreemptSettings preempt;  // PreemptType=preempt/none: no preemption
};

// One job's request, already normalised by the controller: the same shape on every node.
struct JobRequest {
  int64_t job_id = 0;
  int64_t priority = 0;
  // The part of `priority` that grows with waiting (multifactor: the age term; the
  // simulator's FCFS priorities: all of it). A queue order (backfill_order.h) replaces it.
  int64_t priority_age = 0;
  int64_t submit_time = 0;
  int num_nodes = 1;
  int tasks_per_node = 1;
  int cpus_per_node = 1;
  int64_t mem_per_node_mb = 0;  // 0 = no memory reservation
  int gpus_per_node = 0;
  std::string gpu_type;  // empty = any
  bool exclusive = false;
  std::vector<std::string> allowed_nodes;   // the partition's nodes (empty = all)
  std::vector<std::string> required_nodes;  // --nodelist (all must be used)
  std::vector<std::string> excluded_nodes;  // --exclude
  std::string constraint;                   // --constraint: features with & and |
  int64_t time_limit_s = 0;                 // 0 = unlimited
  std::string reservation;                  // --reservation (empty = none)
  // --switches=N@wait: at most N leaf switches while now < submit_time + switches_wait_s
  // (0 = no limit); afterwards the job takes what it can.
  int max_switches = 0;
  int64_t switches_wait_s = 0;
  // Preemption (sched/preempt.h): the partition's PriorityTier and the job's QOS.
  int priority_tier = 0;
  std::string qos;
  // A component of a heterogeneous job (sbatch hetjob): the components share het_job_id
  // (the first component's id), there are het_size of them, and they start together or
  // not at all (never preemptors). 0 = an ordinary job.
  int64_t het_job_id = 0;
  int het_size = 0;
  // How long the plan expects it to run (a runtime prediction, <= time_limit_s; 0 = the
  // time limit). Backfill plans with it; the job is still killed only at its limit.
  int64_t predicted_runtime_s = 0;
};

enum class Outcome {
  kStartNow,  // allocation filled in
  kPending,   // can run on this cluster, not now; reason says why
  kNever,     // can never run on this cluster as configured; reason says why
};

struct Decision {
  int64_t job_id = 0;
  Outcome outcome = Outcome::kPending;
  std::vector<NodeShare> alloc;
  std::string reason;         // Slurm reason code: Resources, Priority, ...
  int64_t planned_start = 0;  // kPending: when the scheduler expects it to start (0 = unknown)
  // kPending with a planned_start: the nodes, memory and GPUs reserved for it (cpu_ids
  // stay empty: CPUs are counted, not chosen, until the job starts).
  std::vector<NodeShare> planned_alloc;
};

// "Preempt these running jobs for that pending job": the preemptor stays pending until
// the victims' resources are released.
// An entry with no victims: the preemptor only waits for earlier victims to go.
struct Preemption {
  int64_t preemptor = 0;
  std::vector<int64_t> victims;  // job ids, in the order they were chosen
  std::vector<NodeShare> alloc;  // where the preemptor will run once they are gone
};

struct Plan {
  std::vector<Decision> decisions;      // one per job request, in request order
  std::vector<Preemption> preemptions;  // PreemptType != none: victims chosen this pass
};

}  // namespace sluice::sched
