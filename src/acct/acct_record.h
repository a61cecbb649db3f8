// Accounting records: one AcctJobRecord per job ATTEMPT (job id + restart count) and
// one AcctStepRecord per step of an attempt (batch = kBatchStep, extern = kExternStep,
// srun steps 0, 1, ...). Plain values shared by every AcctStore backend, the
// controller's writer and sacct/sreport. Times are unix seconds (0 = not yet);
// states are sluice::JobState numbers plus kStateRequeued (an attempt a requeue closed).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace sluice::acct {

inline constexpr int kBatchStep = -5;   // "123.batch"
inline constexpr int kExternStep = -4;  // "123.extern"
inline constexpr int kStateRequeued = 100;

struct AcctJobRecord {
  int64_t job_id = 0;
  int32_t attempt = 0;       // restart count of this run
  int64_t array_job_id = 0;  // 0 = not an array task
  int64_t array_task_id = 0;
  std::string name;
  uint32_t uid = 0;
  std::string user;
  uint32_t gid = 0;
  std::string group;
  std::string account;
  std::string partition;
  std::string qos;
  int32_t state = 0;
  int32_t exit_code = 0;
  int32_t term_signal = 0;
  int64_t submit_time = 0;
  int64_t eligible_time = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;
  int64_t time_limit_min = 0;  // -1 = UNLIMITED
  std::string nodes;           // hostlist expression ("" before start)
  int32_t nnodes = 0;
  int32_t alloc_cpus = 0;  // 0 before start
  int32_t req_cpus = 0;
  int64_t req_mem_mb = 0;
  int64_t alloc_gpus = 0;
  std::string req_tres;  // billing=4,cpu=4,gres/gpu=4,mem=4000M,node=2
  std::string alloc_tres;
  std::string work_dir;
  int64_t cancelled_by = -1;  // CANCELLED: uid whose request cancelled it; -1 = unknown
  bool operator==(const AcctJobRecord&) const = default;
};

struct AcctStepRecord {
  int64_t job_id = 0;
  int32_t attempt = 0;
  int32_t step_id = 0;  // kBatchStep, kExternStep or 0, 1, ...
  std::string name;
  std::string nodes;
  int32_t nnodes = 0;
  int32_t ntasks = 0;
  int32_t alloc_cpus = 0;
  int32_t state = 0;
  int32_t exit_code = 0;
  int32_t term_signal = 0;
  int64_t start_time = 0;
  int64_t end_time = 0;
  int64_t max_rss_kb = -1;    // -1 = not reported
  int64_t total_cpu_us = -1;  // user + system CPU time of the step's processes
  std::string alloc_tres;
  // Sampled GPU usage as TRES strings (GpuTresUsage); "" = not sampled.
  std::string tres_usage_in_ave;
  std::string tres_usage_in_max;
  bool operator==(const AcctStepRecord&) const = default;
};

// Sampled GPU usage as Slurm's TRES usage string: "gres/gpumem=1024M,gres/gpuutil=75"
// (utilization summed over the GPUs: 8 busy GPUs = 800).
inline std::string GpuTresUsage(int64_t util_pct, int64_t mem_mb) {
  return "gres/gpumem=" + std::to_string(mem_mb) + "M,gres/gpuutil=" + std::to_string(util_pct);
}

// The usage of a batch step, from its job's end report.
struct StepUsage {
  int64_t max_rss_kb = -1;  // -1 = not reported
  int64_t total_cpu_us = -1;
  std::string tres_usage_in_ave;
  std::string tres_usage_in_max;
};

// Closes every still-open attempt of `job_id` older than `attempt`: the job row becomes
// REQUEUED and its open steps CANCELLED (signal 15), both ending at `end_time`.
struct AcctCloseAttempts {
  int64_t job_id = 0;
  int32_t attempt = 0;
  int64_t end_time = 0;
};

// One period a node was unavailable (acct_node_events; Slurm's cluster event table):
// state "DOWN" (not responding, or set down by an admin), "DRAIN" (drained/draining by
// an admin or the health check) or "MAINT" (inside a Flags=MAINT reservation: sreport's
// PLND Down). end_time 0 = still open. Keyed by (node, start_time).
struct NodeEventRecord {
  std::string node;
  int64_t start_time = 0;
  int64_t end_time = 0;
  std::string state;
  std::string reason;
  int64_t cpus = 0;  // the node's TRES while the event lasted
  int64_t gpus = 0;
  bool operator==(const NodeEventRecord&) const = default;
};

// "From `at` on, `node` is in `state` with `reason`" (state "" = available). Idempotent:
// when the node's open event already has this state and reason nothing changes;
// otherwise its open event (if any) ends at `at` and, unless state is "", a new one
// starts at `at` with `cpus`/`gpus`.
struct NodeEventSet {
  std::string node;
  int64_t at = 0;
  std::string state;
  std::string reason;
  int64_t cpus = 0;
  int64_t gpus = 0;
};

// What the store returns: jobs ordered by (job_id, attempt), steps by (job_id,
// attempt, step_id).
struct AcctData {
  std::vector<AcctJobRecord> jobs;
  std::vector<AcctStepRecord> steps;
};

// Store-side selection: jobs whose id is in job_ids (empty = any) that existed in the
// window: submitted before `end` (0 = no bound) and not ended before `start`.
struct AcctWindow {
  std::set<int64_t> job_ids;
  int64_t start = 0;
  int64_t end = 0;
  // Empty = no filter. A job passes with its uid in `uids`, and when any of its attempts
  // has an account in `accounts` and any a state in `states`: every attempt of it is
  // returned, so that the caller's choice of attempts is as without the filters.
  std::set<uint32_t> uids;
  std::set<std::string> accounts;
  std::set<int> states;
};

}  // namespace sluice::acct
