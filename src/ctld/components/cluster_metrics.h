// The controller's metrics (Prometheus text, common/metrics_text.h), by area as Slurm
// 25.11 splits them: /metrics/jobs, /metrics/nodes, /metrics/partitions,
// /metrics/scheduler, /metrics/jobs-users-accts; /metrics is all of them. The gauges are
// computed from the tables at the scrape (exact, not sampled); counters and histograms
// come from CtldStats::process and the RPC statistics (since the process started).
//   jobs        sluice_jobs{state,partition}, sluice_jobs_pending{reason,partition},
//               sluice_jobs_{submitted,started,completed,cancelled,failed,requeued}_total
//   nodes       sluice_nodes{state}, sluice_node_{cpus,gpus}_allocated{node},
//               sluice_node_heartbeat_age_seconds{node}, sluice_node_failures_total
//   partitions  sluice_partition_nodes{partition,state},
//               sluice_partition_cpus{partition,state}, sluice_partition_gpus{partition,
//               gpu_type,state} (state: total, allocated, idle, drained, down)
//   scheduler   sluice_sched_pass_duration_seconds (histogram), sluice_sched_last_pass_*,
//               sluice_sched_jobs_considered_total, sluice_sched_backfill_started_total,
//               sluice_preemptions_total, sluice_journal_commit_duration_seconds and
//               sluice_journal_commit_records (histograms), sluice_rpc_requests_total{method},
//               sluice_rpc_duration_seconds{method} (histogram)
//   jobs-users-accts  sluice_{user,account}_jobs{...,state}, sluice_{user,account}_
//               {cpus,gpus}_allocated: per user and account, left out (see MetricsOptions)
//               where PrivateData hides them from the caller.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/metrics_text.h"
#include "common/status.h"
#include "ctld/components/ctld_stats.h"
#include "ctld/components/job_table.h"
#include "ctld/components/node_table.h"
#include "rpc/rpc_stats.h"

namespace sluice::ctld {

enum class MetricsArea { kAll, kJobs, kNodes, kPartitions, kScheduler, kUsersAccts };

// "/metrics" or "/metrics/<area>" (a trailing slash is allowed); anything else: NotFound.
Expected<MetricsArea> ParseMetricsPath(std::string_view path);

struct MetricsSources {
  const Config* config = nullptr;
  const JobTable* jobs = nullptr;
  const NodeTable* nodes = nullptr;
  const CtldStats* stats = nullptr;
  std::map<std::string, RpcStats::Method> rpcs;  // by method
  int64_t now_ms = 0;
  bool per_user_and_account = true;  // false: the jobs-users-accts series are left out
};

std::string RenderMetrics(const MetricsSources& in, MetricsArea area);

// sinfo's state of a node, spelled out: idle, mixed, allocated, draining, drained, down.
std::string NodeStateName(const NodeInfo& info);

}  // namespace sluice::ctld
