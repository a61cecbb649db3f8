#include "ctld/components/cluster_metrics.h"

#include <array>
#include <tuple>

namespace sluice::ctld {
namespace {

using Counts = std::map<std::vector<std::string>, double>;

// One family whose samples are `counts`, keyed by the values of `keys`.
void Emit(MetricsText* m, std::string_view name, std::string_view type, std::string_view help,
          const std::vector<std::string>& keys, const Counts& counts) {
  m->Family(name, type, help);
  for (const auto& [values, v] : counts) {
    MetricLabels labels;
    for (size_t i = 0; i < keys.size(); ++i) labels.emplace_back(keys[i], values[i]);
    m->Add(labels, v);
  }
}

void Scalar(MetricsText* m, std::string_view name, std::string_view type, std::string_view help,
            double v) {
  m->Family(name, type, help);
  m->Add({}, v);
}

std::string StateOf(const JobInfo& j) {
  return j.completing() && j.state() != JOB_COMPLETING ? "COMPLETING" : JobStateName(j.state());
}

// What a node's free resources are, for the partition series: every resource of a
// node is allocated (held by a job), or else idle, drained or down.
std::string FreeState(const NodeRuntime& n) {
  if (n.Down() || !n.registered) return "down";
  if (n.admin.drain) return "drained";
  return "idle";
}

}  // namespace

std::string NodeStateName(const NodeInfo& i) {
  const bool busy = i.state() == NODE_MIXED || i.state() == NODE_ALLOCATED;
  if (i.drain() && i.state() != NODE_DOWN) return busy ? "draining" : "drained";
  switch (i.state()) {
    case NODE_IDLE:
      return "idle";
    case NODE_MIXED:
      return "mixed";
    case NODE_ALLOCATED:
      return "allocated";
    case NODE_DOWN:
      return "down";
    default:
      return "unknown";
  }
}

namespace {

void WriteJobs(const MetricsSources& in, MetricsText* m) {
  Counts by_state, pending;
  for (const auto& [id, j] : in.jobs->jobs()) {
    by_state[{StateOf(j), j.spec().partition()}] += 1;
    if (j.state() == JOB_PENDING) pending[{j.reason(), j.spec().partition()}] += 1;
  }
  Emit(m, "sluice_jobs", "gauge", "Jobs in the controller's memory by state and partition",
       {"state", "partition"}, by_state);
  Emit(m, "sluice_jobs_pending", "gauge", "Pending jobs by reason and partition",
       {"reason", "partition"}, pending);
  const JobCounters& c = in.stats->jobs;
  const std::array<std::tuple<const char*, const char*, int64_t>, 6> totals{{
      {"sluice_jobs_submitted_total", "Jobs (and array tasks) submitted", c.submitted},
      {"sluice_jobs_started_total", "Job starts", c.started},
      {"sluice_jobs_completed_total", "Jobs ended COMPLETED", c.completed},
      {"sluice_jobs_cancelled_total", "Jobs ended CANCELLED", c.cancelled},
      {"sluice_jobs_failed_total", "Jobs ended otherwise (FAILED, TIMEOUT, NODE_FAIL, ...)",
       c.failed},
      {"sluice_jobs_requeued_total", "Requeues (node loss, preemption, scontrol requeue)",
       c.requeued},
  }};
  for (const auto& [name, help, v] : totals)
    Scalar(m, name, "counter", help, static_cast<double>(v));
}

void WriteNodes(const MetricsSources& in, MetricsText* m) {
  Counts states, cpus, gpus, age, failed;
  for (const auto& st : {"idle", "mixed", "allocated", "draining", "drained", "down", "unknown"})
    states[{st}] = 0;
  double failed_total = 0;
  for (const NodeRuntime& n : in.nodes->nodes()) {
    const NodeInfo info = in.nodes->ToInfo(n, in.now_ms / 1000);
    states[{NodeStateName(info)}] += 1;
    cpus[{n.cfg.name}] = info.alloc_cpus();
    gpus[{n.cfg.name}] = info.alloc_gpus();
    if (n.registered) age[{n.cfg.name}] = (in.now_ms - n.last_heartbeat_ms) / 1000.0;
    for (size_t i = 0; i < n.gpu_faults.size(); ++i) {
      if (n.gpu_faults[i].empty()) continue;
      failed[{n.cfg.name, std::to_string(n.cfg.gpus[i].index), n.gpu_faults[i]}] = 1;
      ++failed_total;
    }
  }
  Emit(m, "sluice_nodes", "gauge", "Nodes by state", {"state"}, states);
  Emit(m, "sluice_node_cpus_allocated", "gauge", "CPUs held by jobs, by node", {"node"}, cpus);
  Emit(m, "sluice_node_gpus_allocated", "gauge", "GPUs held by jobs, by node", {"node"}, gpus);
  Emit(m, "sluice_node_heartbeat_age_seconds", "gauge",
       "Seconds since the node's agent last reported, by registered node", {"node"}, age);
  Scalar(m, "sluice_gpus_failed", "gauge",
         "GPUs whose agent's health check fails now (GpuHealthCheckInterval)", failed_total);
  Emit(m, "sluice_gpu_failed", "gauge", "A GPU failing its health check, with the fault",
       {"node", "gpu", "fault"}, failed);
  Scalar(m, "sluice_node_failures_total", "counter",
         "Nodes that stopped answering (set DOWN, their jobs requeued or failed)",
         static_cast<double>(in.stats->process.node_failures));
}

void WritePartitions(const MetricsSources& in, MetricsText* m) {
  Counts nodes, cpus, gpus;
  for (const PartitionConfig& p : in.config->partitions) {
    for (const auto& st : {"total", "allocated", "idle", "drained", "down"}) {
      cpus[{p.name, st}] += 0;
      nodes[{p.name, st}] += 0;
    }
    for (const std::string& name : p.nodes) {
      const NodeRuntime* n = in.nodes->Find(name);
      if (!n) continue;
      const std::string free_state = FreeState(*n);
      const bool busy = !n->jobs.empty();
      nodes[{p.name, "total"}] += 1;
      nodes[{p.name, busy && free_state != "down" ? "allocated" : free_state}] += 1;
      const int used = n->AllocatedCpus();
      cpus[{p.name, "total"}] += n->cfg.cpus;
      cpus[{p.name, "allocated"}] += used;
      cpus[{p.name, free_state}] += n->cfg.cpus - used;
      for (size_t g = 0; g < n->cfg.gpus.size(); ++g) {
        const std::string& type = n->cfg.gpus[g].type;
        for (const auto& st : {"total", "allocated", "idle", "drained", "down"})
          gpus[{p.name, type, st}] += 0;
        const bool held = g < n->gpu_used.size() && n->gpu_used[g];
        const bool failed = free_state == "idle" && !n->gpu_faults[g].empty();  // withheld
        gpus[{p.name, type, "total"}] += 1;
        gpus[{p.name, type, held ? "allocated" : failed ? "drained" : free_state}] += 1;
      }
    }
  }
  Emit(m, "sluice_partition_nodes", "gauge",
       "Nodes of the partition: total, allocated (running jobs), idle, drained, down",
       {"partition", "state"}, nodes);
  Emit(m, "sluice_partition_cpus", "gauge",
       "CPUs of the partition: total = allocated + idle + drained + down", {"partition", "state"},
       cpus);
  Emit(m, "sluice_partition_gpus", "gauge",
       "GPUs of the partition by type: total = allocated + idle + drained + down",
       {"partition", "gpu_type", "state"}, gpus);
}

void WriteScheduler(const MetricsSources& in, MetricsText* m) {
  const ProcessMetrics& p = in.stats->process;
  m->Family("sluice_sched_pass_duration_seconds", "histogram", "Scheduling pass duration");
  m->Add({}, p.pass_seconds);
  Scalar(m, "sluice_sched_last_pass_jobs_considered", "gauge",
         "Pending jobs the last scheduling pass considered",
         static_cast<double>(in.stats->passes.last_depth));
  Scalar(m, "sluice_sched_last_pass_backfill_started", "gauge",
         "Jobs the last pass started ahead of a higher-priority pending job",
         static_cast<double>(in.stats->passes.last_backfilled));
  Scalar(m, "sluice_sched_jobs_considered_total", "counter",
         "Pending jobs considered, summed over scheduling passes",
         static_cast<double>(p.pass_jobs_considered));
  Scalar(m, "sluice_sched_backfill_started_total", "counter",
         "Jobs started ahead of a higher-priority pending job (backfill)",
         static_cast<double>(p.pass_backfilled));
  Scalar(m, "sluice_preemptions_total", "counter", "Jobs preempted",
         static_cast<double>(p.preemptions));
  m->Family("sluice_journal_commit_duration_seconds", "histogram",
            "State store commit (group commit of one batch) duration");
  m->Add({}, p.commit_seconds);
  m->Family("sluice_journal_commit_records", "histogram", "Records written per commit");
  m->Add({}, p.commit_records);
  Counts calls;
  for (const auto& [method, r] : in.rpcs) calls[{method}] = static_cast<double>(r.count);
  Emit(m, "sluice_rpc_requests_total", "counter", "RPCs answered, by method", {"method"}, calls);
  m->Family("sluice_rpc_duration_seconds", "histogram",
            "RPC duration from arrival to status, by method");
  for (const auto& [method, r] : in.rpcs) m->Add({{"method", method}}, r.seconds);
}

void WriteUsersAccts(const MetricsSources& in, MetricsText* m) {
  Counts user_jobs, acct_jobs, user_cpus, acct_cpus, user_gpus, acct_gpus;
  for (const auto& [id, j] : in.jobs->jobs()) {
    if (IsTerminal(j.state())) continue;
    const std::string state = StateOf(j);
    const std::string& account = j.spec().account();
    user_jobs[{j.user(), state}] += 1;
    acct_jobs[{account, state}] += 1;
    if (!HoldsResources(j)) continue;
    int cpus = 0, gpus = 0;
    for (const auto& a : j.alloc()) {
      cpus += a.cpu_ids_size();
      gpus += a.gpu_ids_size();
    }
    user_cpus[{j.user()}] += cpus;
    acct_cpus[{account}] += cpus;
    user_gpus[{j.user()}] += gpus;
    acct_gpus[{account}] += gpus;
  }
  Emit(m, "sluice_user_jobs", "gauge", "Jobs not ended, by user and state", {"user", "state"},
       user_jobs);
  Emit(m, "sluice_user_cpus_allocated", "gauge", "CPUs held by running jobs, by user", {"user"},
       user_cpus);
  Emit(m, "sluice_user_gpus_allocated", "gauge", "GPUs held by running jobs, by user", {"user"},
       user_gpus);
  Emit(m, "sluice_account_jobs", "gauge", "Jobs not ended, by account and state",
       {"account", "state"}, acct_jobs);
  Emit(m, "sluice_account_cpus_allocated", "gauge", "CPUs held by running jobs, by account",
       {"account"}, acct_cpus);
  Emit(m, "sluice_account_gpus_allocated", "gauge", "GPUs held by running jobs, by account",
       {"account"}, acct_gpus);
}

}  // namespace

Expected<MetricsArea> ParseMetricsPath(std::string_view path) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  static const std::map<std::string_view, MetricsArea> kPaths = {
      {"/metrics", MetricsArea::kAll},
      {"/metrics/jobs", MetricsArea::kJobs},
      {"/metrics/nodes", MetricsArea::kNodes},
      {"/metrics/partitions", MetricsArea::kPartitions},
      {"/metrics/scheduler", MetricsArea::kScheduler},
      {"/metrics/jobs-users-accts", MetricsArea::kUsersAccts},
  };
  auto it = kPaths.find(path);
  if (it == kPaths.end()) return NotFound("no metrics at " + std::string(path));
  return it->second;
}

std::string RenderMetrics(const MetricsSources& in, MetricsArea area) {
  MetricsText m;
  const bool all = area == MetricsArea::kAll;
  if (all || area == MetricsArea::kJobs) WriteJobs(in, &m);
  if (all || area == MetricsArea::kNodes) WriteNodes(in, &m);
  if (all || area == MetricsArea::kPartitions) WritePartitions(in, &m);
  if (all || area == MetricsArea::kScheduler) WriteScheduler(in, &m);
  if ((all || area == MetricsArea::kUsersAccts) && in.per_user_and_account) WriteUsersAccts(in, &m);
  return m.Take();
}

}  // namespace sluice::ctld
