#include "cli/query_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "cli/array_view.h"
#include "cli/job_states.h"
#include "cli/job_view.h"
#include "cli/node_view.h"
#include "common/text_util.h"

namespace sluice {
namespace {

using nlohmann::json;

json NullIfZero(int64_t v) { return v > 0 ? json(v) : json(); }
std::string Tres(const char* what, int64_t n) {
  return n > 0 ? std::string(what) + std::to_string(n) : "";
}

// "0-3,5" for sorted ids.
// Slurm lists the allocated cores per socket; Sluice knows CPU ids, shown on socket 0.
json JobResources(const JobInfo& j) {
  json nodes = json::array();
  for (const NodeAlloc& a : j.alloc()) {
    json cores = json::object();
    for (int32_t c : a.cpu_ids()) cores[std::to_string(c)] = "allocated";
    nodes.push_back({{"sockets", {{"0", {{"cores", cores}}}}},
                     {"nodename", a.node()},
                     {"cpus_used", 0},
                     {"memory_used", 0},
                     {"memory_allocated", a.mem_mb()}});
  }
  return {{"nodes", JobNodeList(j)},
          {"allocated_cores", j.num_cpus()},
          {"allocated_hosts", j.alloc_size()},
          {"allocated_nodes", nodes}};
}

json GresDetail(const JobInfo& j) {
  json out = json::array();
  for (const NodeAlloc& a : j.alloc()) {
    if (a.gpu_ids().empty()) continue;
    std::vector<int32_t> ids(a.gpu_ids().begin(), a.gpu_ids().end());
    out.push_back("gpu:" + (a.gpu_type().empty() ? "" : a.gpu_type() + ":") +
                  std::to_string(ids.size()) + "(IDX:" + FormatIdRanges(ids) + ")");
  }
  return out;
}

json JobJson(const JobInfo& j, const std::string& cluster) {
  const JobSpec& s = j.spec();
  bool started = j.start_time() > 0 && !j.alloc().empty();
  int cpt = std::max(1, s.cpus_per_task());
  json o;
  o["account"] = s.account();
  o["accrue_time"] = j.eligible_time();
  o["admin_comment"] = "";
  o["array_job_id"] = j.array_job_id();
  o["array_task_id"] =
      j.array_job_id() > 0 && j.array_task_str().empty() ? json(j.array_task_id()) : json();
  o["array_max_tasks"] = j.array_throttle();
  std::string tasks = j.array_task_str();
  if (tasks.size() >= 2 && tasks.front() == '[') tasks = tasks.substr(1, tasks.size() - 2);
  o["array_task_string"] = tasks;
  o["association_id"] = 0;
  o["batch_features"] = "";
  o["batch_flag"] = !s.interactive();
  o["batch_host"] = JobBatchHost(j);
  o["flags"] = j.state() == JOB_RUNNING ? json::array({"JOB_WAS_RUNNING"}) : json::array();
  o["burst_buffer"] = "";
  o["burst_buffer_state"] = "";
  o["cluster"] = cluster;
  o["cluster_features"] = "";
  o["command"] = s.command();
  o["comment"] = s.comment();
  o["container"] = "";
  o["contiguous"] = false;
  o["core_spec"] = nullptr;
  o["thread_spec"] = nullptr;
  o["cores_per_socket"] = nullptr;
  o["billable_tres"] = started ? json(static_cast<double>(j.num_cpus())) : json();
  o["cpus_per_task"] = NullIfZero(s.cpus_per_task());
  o["cpu_frequency_minimum"] = nullptr;
  o["cpu_frequency_maximum"] = nullptr;
  o["cpu_frequency_governor"] = nullptr;
  o["cpus_per_tres"] = Tres("gres:gpu:", s.cpus_per_gpu());
  o["deadline"] = 0;
  o["delay_boot"] = 0;
  std::string dep = DependencyString(j);
  o["dependency"] = dep == "(null)" ? "" : dep;
  o["derived_exit_code"] = 0;
  o["eligible_time"] = j.eligible_time();
  o["end_time"] = IsTerminalState(j.state()) ? j.end_time() : (started ? JobEndTime(j) : 0);
  o["excluded_nodes"] = s.exclude();
  o["exit_code"] = j.exit_code();
  o["features"] = s.constraint();
  o["federation_origin"] = "";
  o["federation_siblings_active"] = "";
  o["federation_siblings_viable"] = "";
  o["gres_detail"] = GresDetail(j);
  o["group_id"] = j.gid();
  o["group_name"] = j.group();
  o["job_id"] = j.job_id();
  if (started) o["job_resources"] = JobResources(j);
  o["job_state"] = JobStateName(j);
  o["last_sched_evaluation"] = j.last_sched_eval();
  o["licenses"] = "";
  o["max_cpus"] = 0;
  o["max_nodes"] = s.max_nodes();
  o["mcs_label"] = "";
  o["memory_per_tres"] = Tres("gres:gpu:", s.mem_per_gpu_mb());
  o["name"] = s.name();
  o["nodes"] = JobNodeList(j);
  o["nice"] = s.nice() != 0 ? json(s.nice()) : json();
  o["tasks_per_core"] = nullptr;
  o["tasks_per_node"] = s.ntasks_per_node();
  o["tasks_per_socket"] = nullptr;
  o["tasks_per_board"] = 0;
  o["cpus"] = j.num_cpus();
  o["node_count"] = j.num_nodes();
  o["tasks"] = j.num_tasks();
  o["het_job_id"] = j.het_job_id();
  o["het_job_id_set"] = HetJobIdSet(j);
  o["het_job_offset"] = j.het_job_offset();
  o["partition"] = s.partition();
  o["prefer"] = "";
  bool per_cpu = s.mem_per_cpu_mb() > 0;
  o["memory_per_node"] = per_cpu ? json() : NullIfZero(j.mem_per_node_mb());
  o["memory_per_cpu"] = per_cpu ? json(s.mem_per_cpu_mb()) : json();
  o["minimum_cpus_per_node"] =
      std::max(s.min_cpus_per_node(), cpt * std::max(1, s.ntasks_per_node()));
  o["minimum_tmp_disk_per_node"] = s.tmp_disk_mb();
  o["preempt_time"] = j.preempt_time();
  o["pre_sus_time"] = 0;
  o["priority"] = j.priority();
  o["profile"] = nullptr;
  o["qos"] = s.qos().empty() ? "normal" : s.qos();
  o["reboot"] = false;
  o["required_nodes"] = s.nodelist();
  o["requeue"] = s.requeue() != 2;
  o["resize_time"] = 0;
  o["restart_cnt"] = j.restarts();
  o["resv_name"] = s.reservation();
  o["shared"] = s.exclusive() ? json("none") : json();
  o["show_flags"] = {"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"};
  o["sockets_per_board"] = 0;
  o["sockets_per_node"] = nullptr;
  o["start_time"] = JobStartOrPlanned(j);
  o["state_description"] = "";
  o["state_reason"] = j.reason().empty() ? "None" : j.reason();
  o["standard_error"] = s.stderr_pattern().empty() ? "" : j.stderr_path();
  o["standard_input"] = s.stdin_path().empty() ? "/dev/null" : s.stdin_path();
  o["standard_output"] = s.interactive() ? "" : j.stdout_path();
  o["submit_time"] = j.submit_time();
  o["suspend_time"] = 0;
  o["system_comment"] = "";
  o["time_limit"] = NullIfZero(j.time_limit_min());
  o["time_minimum"] = 0;
  o["threads_per_core"] = nullptr;
  o["tres_bind"] = "";
  o["tres_freq"] = "";
  o["tres_per_job"] = Tres("gres:gpu:", s.gpus_total());
  o["tres_per_node"] = JobTresPerNode(j);
  o["tres_per_socket"] = "";
  o["tres_per_task"] = Tres("gres:gpu:", s.gpus_per_task());
  o["tres_req_str"] = JobTresString(j);
  o["tres_alloc_str"] = started ? JobTresString(j) : "";
  o["user_id"] = j.uid();
  o["user_name"] = j.user();
  o["wckey"] = "";
  o["current_working_directory"] = s.work_dir();
  return o;
}

// "mixed" for scontrol's "MIXED*+DRAIN": DRAIN and NOT_RESPONDING are flags in the JSON.
std::string BaseState(const NodeInfo& n) {
  std::string s = NodeStateScontrol(n);
  s.resize(std::min(s.size(), s.find_first_of("*+")));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

json NodeJson(const NodeInfo& n, const std::function<std::string(uint32_t)>& user) {
  std::string feats;
  for (const std::string& f : n.features()) feats += (feats.empty() ? "" : ",") + f;
  json flags = json::array();
  if (n.drain()) flags.push_back("DRAIN");
  if (!n.responding()) flags.push_back("NOT_RESPONDING");
  std::string used = NodeAllocTres(n);
  json o;
  o["architecture"] = n.arch();
  o["burstbuffer_network_address"] = "";
  o["boards"] = 1;
  o["boot_time"] = n.boot_time();
  o["comment"] = "";
  o["cores"] = n.cores_per_socket();
  o["cpu_binding"] = 0;
  o["cpu_load"] = n.has_cpu_load() ? json(std::llround(n.cpu_load() * 100)) : json(0);
  o["extra"] = "";
  o["free_memory"] = n.has_free_mem_mb() ? json(n.free_mem_mb()) : json();
  o["cpus"] = n.cpus();
  o["last_busy"] = n.last_busy_time();
  o["features"] = feats;
  o["active_features"] = feats;
  o["gres"] = n.gpus_size() > 0 ? NodeGres(n) : "";
  o["gres_drained"] = "N/A";
  o["gres_used"] = n.gpus_size() > 0 ? NodeGresUsed(n) : "";
  o["mcs_label"] = "";
  o["name"] = n.name();
  o["next_state_after_reboot"] = "invalid";
  o["address"] = n.addr();
  o["hostname"] = n.name();
  o["state"] = BaseState(n);
  o["state_flags"] = flags;
  o["next_state_after_reboot_flags"] = json::array();
  o["operating_system"] = n.os();
  o["owner"] = nullptr;
  o["partitions"] = n.partitions();
  o["port"] = n.port();
  o["real_memory"] = n.real_memory_mb();
  o["reason"] = n.reason();
  o["reason_changed_at"] = n.reason().empty() ? 0 : n.reason_time();
  o["reason_set_by_user"] = n.reason().empty() ? json() : json(user(n.reason_uid()));
  o["slurmd_start_time"] = n.agent_start_time();
  o["sockets"] = n.sockets();
  o["threads"] = n.threads_per_core();
  o["temporary_disk"] = 0;
  o["weight"] = 1;
  o["tres"] = NodeCfgTres(n);
  o["slurmd_version"] = n.version();
  o["alloc_memory"] = n.alloc_mem_mb();
  o["alloc_cpus"] = n.alloc_cpus();
  o["idle_cpus"] = std::max(0, n.cpus() - n.alloc_cpus());
  o["tres_used"] = used.empty() ? json() : json(used);
  o["tres_weighted"] = static_cast<double>(n.alloc_cpus());
  return o;
}

}  // namespace

json OpenApiMeta() {
  return {{"plugin", {{"type", "openapi/v0.0.38"}, {"name", "Slurm OpenAPI v0.0.38"}}},
          {"Slurm",
           {{"version", {{"major", 22}, {"micro", 8}, {"minor", 5}}}, {"release", "22.05.8"}}}};
}

std::string FormatSqueueJson(const std::vector<JobInfo>& jobs, const std::string& cluster) {
  return DumpListing(json{{"meta", OpenApiMeta()}, {"errors", json::array()}}, "jobs", jobs,
                     [&](const JobInfo& j) { return JobJson(j, cluster); });
}

std::string FormatSinfoJson(const std::vector<NodeInfo>& nodes,
                            const std::function<std::string(uint32_t)>& user) {
  return DumpListing(json{{"meta", OpenApiMeta()}, {"errors", json::array()}}, "nodes", nodes,
                     [&](const NodeInfo& n) { return NodeJson(n, user); });
}

std::string FormatSdiagJson(const GetStatsReply& s) {
  const int64_t cycles = s.sched_cycles();
  const int64_t minutes = std::max<int64_t>(1, (s.now() - s.data_since()) / 60);
  json rpcs = json::array();
  for (const RpcMethodStats& m : s.rpcs())
    rpcs.push_back({{"message_type", m.method()},
                    {"count", m.count()},
                    {"average_time", m.count() ? m.total_us() / m.count() : 0},
                    {"total_time", m.total_us()}});
  json stats{{"req_time", s.now()},
             {"req_time_start", s.data_since()},
             {"agent_queue_size", s.agent_queue_size()},
             {"dbd_agent_queue_size", s.acct_queue_size()},
             {"jobs_submitted", s.jobs_submitted()},
             {"jobs_started", s.jobs_started()},
             {"jobs_completed", s.jobs_completed()},
             {"jobs_canceled", s.jobs_cancelled()},
             {"jobs_failed", s.jobs_failed()},
             {"jobs_requeued", s.jobs_requeued()},
             {"jobs_pending", s.jobs_pending()},
             {"jobs_running", s.jobs_running()},
             {"job_states_ts", s.now()},
             {"schedule_cycle_last", s.sched_last_us()},
             {"schedule_cycle_max", s.sched_max_us()},
             {"schedule_cycle_total", cycles},
             {"schedule_cycle_mean", cycles ? s.sched_total_us() / cycles : 0},
             {"schedule_cycle_mean_depth", cycles ? s.sched_total_depth() / cycles : 0},
             {"schedule_cycle_per_minute", cycles / minutes},
             {"schedule_queue_length", s.sched_last_depth()},
             {"bf_backfilled_jobs", s.backfilled_jobs()},
             {"bf_last_backfilled_jobs", s.last_backfilled_jobs()},
             {"rpcs_by_message_type", rpcs}};
  json root{{"meta", OpenApiMeta()}, {"errors", json::array()}, {"statistics", stats}};
  return root.dump(2) + "\n";
}

}  // namespace sluice
