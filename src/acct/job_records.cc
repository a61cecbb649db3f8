#include "acct/job_records.h"

#include <fmt/format.h>

#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice::acct {

std::string TresString(int64_t cpus, int64_t mem_mb, int64_t gpus, const std::string& gpu_type,
                       int64_t nodes, bool billing) {
  std::string s;
  auto add = [&](const std::string& kv) { s += (s.empty() ? "" : ",") + kv; };
  if (billing) add(fmt::format("billing={}", cpus));
  add(fmt::format("cpu={}", cpus));
  if (gpus > 0) {
    add(fmt::format("gres/gpu={}", gpus));
    if (!gpu_type.empty()) add(fmt::format("gres/gpu:{}={}", gpu_type, gpus));
  }
  if (mem_mb > 0) add("mem=" + FormatMemoryMb(mem_mb));
  add(fmt::format("node={}", nodes));
  return s;
}

AcctJobRecord JobRecordOf(const JobInfo& j) {
  AcctJobRecord r;
  r.job_id = j.job_id();
  r.attempt = j.restarts();
  r.array_job_id = j.array_job_id();
  r.array_task_id = j.array_task_id();
  r.name = j.spec().name();
  r.uid = j.uid();
  r.user = j.user();
  r.gid = j.gid();
  r.group = j.group();
  r.account = j.spec().account();
  r.partition = j.spec().partition();
  r.qos = j.spec().qos().empty() ? "normal" : j.spec().qos();
  r.state = j.state();
  r.exit_code = j.exit_code();
  r.term_signal = j.term_signal();
  r.submit_time = j.submit_time();
  r.eligible_time = j.eligible_time();
  r.start_time = j.start_time();
  r.end_time = j.end_time();
  r.time_limit_min = j.time_limit_min();
  r.work_dir = j.spec().work_dir();
  if (j.state() == JOB_CANCELLED && j.has_cancelled_by()) r.cancelled_by = j.cancelled_by();
  r.req_cpus = j.num_cpus();
  int64_t nodes = std::max(1, j.num_nodes());
  r.req_mem_mb = j.mem_per_node_mb() * nodes;
  r.req_tres =
      TresString(j.num_cpus(), r.req_mem_mb, int64_t{j.gpus_per_node()} * nodes, "", nodes, true);
  if (j.alloc_size() > 0) {
    std::vector<std::string> hosts;
    int64_t cpus = 0, mem = 0, gpus = 0;
    std::string type;
    for (const auto& a : j.alloc()) {
      hosts.push_back(a.node());
      cpus += a.cpu_ids_size();
      mem += a.mem_mb();
      gpus += a.gpu_ids_size();
      if (type.empty()) type = a.gpu_type();
    }
    r.nodes = CompressHostlist(hosts);
    r.nnodes = j.alloc_size();
    r.alloc_cpus = static_cast<int32_t>(cpus);
    r.alloc_gpus = gpus;
    r.alloc_tres = TresString(cpus, mem, gpus, type, j.alloc_size(), true);
  } else {
    r.nnodes = static_cast<int32_t>(nodes);
    r.nodes = j.start_time() > 0 ? "" : "None assigned";
  }
  return r;
}

int StepEndState(int job_state) {
  switch (job_state) {
    case JOB_CANCELLED:
    case JOB_TIMEOUT:
      return JOB_CANCELLED;
    case JOB_PENDING:
      return JOB_CANCELLED;
    default:
      return job_state;
  }
}

std::optional<AcctStepRecord> BatchStepOf(const JobInfo& j, const StepUsage& usage) {
  if (j.spec().interactive() || j.start_time() <= 0 || j.alloc_size() == 0) return std::nullopt;
  const NodeAlloc& a = j.alloc(0);
  AcctStepRecord s;
  s.job_id = j.job_id();
  s.attempt = j.restarts();
  s.step_id = kBatchStep;
  s.name = "batch";
  s.nodes = a.node();
  s.nnodes = 1;
  s.ntasks = 1;
  s.alloc_cpus = a.cpu_ids_size();
  s.start_time = j.start_time();
  bool ended = j.state() != JOB_RUNNING || j.completing();
  bool done = j.state() != JOB_RUNNING && !j.completing() && j.end_time() > 0;
  if (done) {
    s.state = StepEndState(j.state());
    s.exit_code = j.exit_code();
    s.term_signal = j.term_signal();
    if (j.state() == JOB_CANCELLED && s.term_signal == 0 && s.exit_code == 0) s.term_signal = 15;
    s.end_time = j.end_time();
  } else {
    s.state = JOB_RUNNING;
  }
  (void)ended;
  s.max_rss_kb = usage.max_rss_kb;
  s.total_cpu_us = usage.total_cpu_us;
  s.tres_usage_in_ave = usage.tres_usage_in_ave;
  s.tres_usage_in_max = usage.tres_usage_in_max;
  s.alloc_tres = TresString(a.cpu_ids_size(), a.mem_mb(), a.gpu_ids_size(), a.gpu_type(), 1, false);
  return s;
}

AcctJob ToProto(const AcctJobRecord& r) {
  AcctJob p;
  p.set_job_id(r.job_id);
  p.set_attempt(r.attempt);
  p.set_array_job_id(r.array_job_id);
  p.set_array_task_id(r.array_task_id);
  p.set_name(r.name);
  p.set_uid(r.uid);
  p.set_user(r.user);
  p.set_gid(r.gid);
  p.set_group(r.group);
  p.set_account(r.account);
  p.set_partition(r.partition);
  p.set_qos(r.qos);
  p.set_state(r.state);
  p.set_exit_code(r.exit_code);
  p.set_term_signal(r.term_signal);
  p.set_submit_time(r.submit_time);
  p.set_eligible_time(r.eligible_time);
  p.set_start_time(r.start_time);
  p.set_end_time(r.end_time);
  p.set_time_limit_min(r.time_limit_min);
  p.set_nodes(r.nodes);
  p.set_nnodes(r.nnodes);
  p.set_alloc_cpus(r.alloc_cpus);
  p.set_req_cpus(r.req_cpus);
  p.set_req_mem_mb(r.req_mem_mb);
  p.set_alloc_gpus(r.alloc_gpus);
  p.set_req_tres(r.req_tres);
  p.set_alloc_tres(r.alloc_tres);
  p.set_work_dir(r.work_dir);
  if (r.cancelled_by >= 0) p.set_cancelled_by(static_cast<uint32_t>(r.cancelled_by));
  return p;
}

AcctJobRecord FromProto(const AcctJob& p) {
  AcctJobRecord r;
  r.job_id = p.job_id();
  r.attempt = p.attempt();
  r.array_job_id = p.array_job_id();
  r.array_task_id = p.array_task_id();
  r.name = p.name();
  r.uid = p.uid();
  r.user = p.user();
  r.gid = p.gid();
  r.group = p.group();
  r.account = p.account();
  r.partition = p.partition();
  r.qos = p.qos();
  r.state = p.state();
  r.exit_code = p.exit_code();
  r.term_signal = p.term_signal();
  r.submit_time = p.submit_time();
  r.eligible_time = p.eligible_time();
  r.start_time = p.start_time();
  r.end_time = p.end_time();
  r.time_limit_min = p.time_limit_min();
  r.nodes = p.nodes();
  r.nnodes = p.nnodes();
  r.alloc_cpus = p.alloc_cpus();
  r.req_cpus = p.req_cpus();
  r.req_mem_mb = p.req_mem_mb();
  r.alloc_gpus = p.alloc_gpus();
  r.req_tres = p.req_tres();
  r.alloc_tres = p.alloc_tres();
  r.work_dir = p.work_dir();
  r.cancelled_by = p.has_cancelled_by() ? int64_t{p.cancelled_by()} : -1;
  return r;
}

AcctStep ToProto(const AcctStepRecord& r) {
  AcctStep p;
  p.set_job_id(r.job_id);
  p.set_attempt(r.attempt);
  p.set_step_id(r.step_id);
  p.set_name(r.name);
  p.set_nodes(r.nodes);
  p.set_nnodes(r.nnodes);
  p.set_ntasks(r.ntasks);
  p.set_alloc_cpus(r.alloc_cpus);
  p.set_state(r.state);
  p.set_exit_code(r.exit_code);
  p.set_term_signal(r.term_signal);
  p.set_start_time(r.start_time);
  p.set_end_time(r.end_time);
  p.set_max_rss_kb(r.max_rss_kb);
  p.set_total_cpu_us(r.total_cpu_us);
  p.set_alloc_tres(r.alloc_tres);
  p.set_tres_usage_in_ave(r.tres_usage_in_ave);
  p.set_tres_usage_in_max(r.tres_usage_in_max);
  return p;
}

AcctStepRecord FromProto(const AcctStep& p) {
  AcctStepRecord r;
  r.job_id = p.job_id();
  r.attempt = p.attempt();
  r.step_id = p.step_id();
  r.name = p.name();
  r.nodes = p.nodes();
  r.nnodes = p.nnodes();
  r.ntasks = p.ntasks();
  r.alloc_cpus = p.alloc_cpus();
  r.state = p.state();
  r.exit_code = p.exit_code();
  r.term_signal = p.term_signal();
  r.start_time = p.start_time();
  r.end_time = p.end_time();
  r.max_rss_kb = p.max_rss_kb();
  r.total_cpu_us = p.total_cpu_us();
  r.alloc_tres = p.alloc_tres();
  r.tres_usage_in_ave = p.tres_usage_in_ave();
  r.tres_usage_in_max = p.tres_usage_in_max();
  return r;
}

}  // namespace sluice::acct
