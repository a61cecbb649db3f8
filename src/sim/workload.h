// Turns a parsed Trace into what the simulator replays: a cluster snapshot (derived from
// the trace or taken from a sluice.conf) and one scheduler request per job. Pure.
//
// Cluster rules:
//  - SWF (CPU): nodes of `cpus_per_node` CPUs (default 1, so one node per processor and a
//    P-processor job asks for P CPUs anywhere, as SWF counts them). Node count: --nodes,
//    else the header's MaxProcs (MaxNodes when MaxProcs is absent, else the widest job)
//    divided by cpus_per_node, rounded up.
//  - GPU traces: nodes of `gpus_per_node` GPUs (default 8) and as many CPUs. Node count:
//    --nodes, else the trace's peak concurrent GPU demand if every job started at its
//    submit time (the smallest cluster that could run it without queueing under perfect
//    packing), rounded up to whole nodes, and at least the widest job.
//  - A sluice.conf (`config`) replaces the derived cluster: its nodes in file order, all
//    available, with their CPUs, memory, typed GPUs and features (partitions ignored).
// Job shape on nodes of C CPUs (SWF) or G GPUs (GPU traces; C and G are the largest node's):
//  - SWF: P processors -> n = ceil(P / C) nodes of ceil(P / n) CPUs each.
//  - GPU: g GPUs -> n = the trace's node count, else ceil(g / G); ceil(g / n) GPUs and as
//    many CPUs per node.
//  - Time limit = the requested time; no memory request. The trace's user (if any) is
//    traits.user ("u" + id) and its executable the job's `app` (runtime prediction keys). A job
//    larger than the cluster is kept; the simulator reports it as rejected.
// Request job ids are 1.. in submit order, priorities decrease with it (FCFS order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/status.h"
#include "sched/types.h"
#include "sim/trace.h"

namespace sluice::sim {

// Who runs a job and where: the inputs of multifactor priority (sim/priority_pass.h);
// the partition's PriorityTier is the request's priority_tier. Traces leave them empty.
struct PriorityTraits {
  std::string user;
  std::string account;               // empty = "root"
  int64_t partition_job_factor = 0;  // its partition's PriorityJobFactor
  int64_t qos_priority = 0;          // its QOS's Priority
  int64_t nice = 0;
};

struct SimJob {
  std::string id;  // the trace's job id
  int64_t submit_s = 0;
  int64_t run_s = 0;  // actual run time; the request's time limit is the estimate
  sched::JobRequest request;
  int64_t cpus = 0;  // CPUs it holds while running (all nodes)
  int64_t gpus = 0;  // GPUs it holds while running (all nodes)
  PriorityTraits traits;
  std::string app;  // the trace's executable / job name ("" = not known): prediction key
  // Arrays and dependencies (scenario files; traces leave them empty). A job with
  // dependencies joins the queue when they are met, and that is its eligible time.
  int64_t array_job_id = 0;       // request job id of its array's first task (0 = none)
  int64_t array_throttle = 0;     // at most this many of the array's tasks run (0 = any)
  std::vector<size_t> after_ok;   // job indexes that must complete first (afterok)
  std::vector<size_t> after_any;  // job indexes that must end first, however (afterany)
};

struct Workload {
  TraceKind kind = TraceKind::kCpu;
  sched::ClusterSnapshot cluster;
  std::vector<SimJob> jobs;  // in submit order
  int64_t total_cpus = 0;
  int64_t total_gpus = 0;
};

struct WorkloadOptions {
  int nodes = 0;                   // 0 = derive from the trace
  int cpus_per_node = 1;           // SWF derived clusters
  int gpus_per_node = 8;           // GPU derived clusters
  const Config* config = nullptr;  // overrides the derived cluster when set
};

Expected<Workload> BuildWorkload(const Trace& trace, const WorkloadOptions& options);

// The nodes of a parsed sluice.conf as an idle cluster snapshot.
sched::ClusterSnapshot ClusterFromConfig(const Config& config);

// Peak concurrent GPUs if every job started at its submit time and ran its run time.
int64_t PeakGpuDemand(const std::vector<TraceJob>& jobs);

}  // namespace sluice::sim
