#include "cli/scontrol_show.h"

#include <cstdio>
#include <map>
#include <set>

#include "cli/array_view.h"
#include "cli/job_states.h"
#include "cli/job_view.h"
#include "cli/node_view.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "common/text_util.h"

namespace sluice {
namespace {

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }
std::string TsOr(int64_t t, const char* unset) { return t > 0 ? FormatTimestamp(t) : unset; }
std::string Who(const std::string& name, uint32_t id) {
  return (name.empty() ? std::to_string(id) : name) + "(" + std::to_string(id) + ")";
}

std::string NumNodes(const JobInfo& j) {
  if (j.state() == JOB_PENDING && j.spec().min_nodes() > 0) {
    int32_t mx = j.spec().max_nodes() > 0 ? j.spec().max_nodes() : j.spec().min_nodes();
    return std::to_string(j.spec().min_nodes()) + "-" + std::to_string(mx);
  }
  return std::to_string(j.num_nodes());
}

std::string JobEnd(const JobInfo& j) {
  if (IsTerminalState(j.state())) return TsOr(j.end_time(), "Unknown");
  if (j.state() == JOB_RUNNING) return TsOr(JobEndTime(j), "Unknown");
  return "Unknown";
}

std::string MinMemory(const JobInfo& j) {
  if (j.spec().mem_per_cpu_mb() > 0)
    return "MinMemoryCPU=" + FormatMemoryMb(j.spec().mem_per_cpu_mb());
  return "MinMemoryNode=" + (j.mem_per_node_mb() > 0 ? FormatMemoryMb(j.mem_per_node_mb()) : "0");
}

// " ArrayJobId=44 ArrayTaskId=0-3 ArrayTaskThrottle=2" for array tasks.
std::string ArrayFields(const JobInfo& j) {
  if (j.array_job_id() == 0) return "";
  const std::string& s = j.array_task_str();
  std::string tasks = s.size() >= 2 && s.front() == '[' ? s.substr(1, s.size() - 2)
                                                        : std::to_string(j.array_task_id());
  size_t pct = tasks.find('%');
  if (pct != std::string::npos) tasks.resize(pct);
  std::string r = " ArrayJobId=" + std::to_string(j.array_job_id()) + " ArrayTaskId=" + tasks;
  if (j.array_throttle() > 0) r += " ArrayTaskThrottle=" + std::to_string(j.array_throttle());
  return r;
}

// " HetJobId=10 HetJobOffset=1 HetJobIdSet=10-12" for a heterogeneous job's components.
std::string HetFields(const JobInfo& j) {
  if (j.het_job_id() == 0) return "";
  return " HetJobId=" + std::to_string(j.het_job_id()) +
         " HetJobOffset=" + std::to_string(j.het_job_offset()) + " HetJobIdSet=" + HetJobIdSet(j);
}

std::string JobHead(const JobInfo& j, int64_t now) {
  const JobSpec& s = j.spec();
  std::string r = "JobId=" + std::to_string(j.job_id()) + ArrayFields(j) + HetFields(j) +
                  " JobName=" + s.name() + "\n";
  r += "   UserId=" + Who(j.user(), j.uid()) + " GroupId=" + Who(j.group(), j.gid()) +
       " MCS_label=N/A\n";
  r += "   Priority=" + std::to_string(j.priority()) + " Nice=0 Account=" + OrNull(s.account()) +
       " QOS=" + (s.qos().empty() ? "normal" : s.qos()) + "\n";
  r += "   JobState=" + JobStateName(j) + " Reason=" + (j.reason().empty() ? "None" : j.reason()) +
       " Dependency=" + DependencyString(j) + "\n";
  r += "   Requeue=" + std::string(s.requeue() == 2 ? "0" : "1") +
       " Restarts=" + std::to_string(j.restarts()) +
       " BatchFlag=1 Reboot=0 ExitCode=" + JobExitCode(j) + "\n";
  r += "   RunTime=" + FormatHms(JobRunSeconds(j, now)) +
       " TimeLimit=" + FormatHmsLimit(j.time_limit_min()) + " TimeMin=N/A\n";
  r += "   SubmitTime=" + TsOr(j.submit_time(), "Unknown") +
       " EligibleTime=" + TsOr(j.eligible_time(), "Unknown") + "\n";
  r += "   AccrueTime=" + TsOr(j.eligible_time(), "Unknown") + "\n";
  r += "   StartTime=" + TsOr(JobStartOrPlanned(j), "Unknown") + " EndTime=" + JobEnd(j) +
       " Deadline=N/A\n";
  r +=
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=" + TsOr(j.last_sched_eval(), "Unknown") +
      " Scheduler=Main\n";
  return r;
}

std::string JobBody(const JobInfo& j) {
  const JobSpec& s = j.spec();
  int cpt = std::max(1, s.cpus_per_task());
  std::string r =
      "   Partition=" + s.partition() + " AllocNode:Sid=" + OrNull(s.submit_host()) + ":0\n";
  r += "   ReqNodeList=" + OrNull(s.nodelist()) + " ExcNodeList=" + OrNull(s.exclude()) + "\n";
  r += "   NodeList=" + JobNodeList(j) + "\n";
  if (!j.sched_nodes().empty()) r += "   SchedNodeList=" + j.sched_nodes() + "\n";
  if (!JobBatchHost(j).empty()) r += "   BatchHost=" + JobBatchHost(j) + "\n";
  r += "   NumNodes=" + NumNodes(j) + " NumCPUs=" + std::to_string(j.num_cpus()) +
       " NumTasks=" + std::to_string(j.num_tasks()) + " CPUs/Task=" + std::to_string(cpt) +
       " ReqB:S:C:T=0:0:*:*\n";
  r += "   TRES=" + JobTresString(j) + "\n";
  r += "   Socks/Node=* NtasksPerN:B:S:C=" + std::to_string(s.ntasks_per_node()) +
       ":0:*:* CoreSpec=*\n";
  r += "   MinCPUsNode=" +
       std::to_string(std::max(s.min_cpus_per_node(), cpt * std::max(1, s.ntasks_per_node()))) +
       " " + MinMemory(j) +
       " MinTmpDiskNode=" + (s.tmp_disk_mb() > 0 ? FormatMemoryMb(s.tmp_disk_mb()) : "0") + "\n";
  r += "   Features=" + OrNull(s.constraint()) + " DelayBoot=00:00:00\n";
  r += "   OverSubscribe=" + std::string(s.exclusive() ? "NO" : "OK") +
       " Contiguous=0 Licenses=(null) Network=(null)\n";
  r += "   Command=" + OrNull(s.command()) + "\n";
  r += "   WorkDir=" + s.work_dir() + "\n";
  if (!s.comment().empty()) r += "   Comment=" + s.comment() + "\n";
  std::string err = j.stderr_path().empty() ? j.stdout_path() : j.stderr_path();
  r += "   StdErr=" + err + "\n";
  r += "   StdIn=" + (s.stdin_path().empty() ? std::string("/dev/null") : s.stdin_path()) + "\n";
  r += "   StdOut=" + j.stdout_path() + "\n";
  r += "   Power=\n";
  if (std::string t = JobTresPerNode(j); !t.empty()) r += "   TresPerNode=" + t + "\n";
  if (!j.explanation().empty()) r += "   Explanation=" + j.explanation() + "\n";
  return r + "   \n\n";
}

}  // namespace

std::string FormatJobRecord(const JobInfo& job, int64_t now) {
  return JobHead(job, now) + JobBody(job);
}

std::string FormatNodeRecord(const NodeInfo& n, const std::function<std::string(uint32_t)>& user) {
  char load[32] = "N/A";
  if (n.has_cpu_load()) std::snprintf(load, sizeof(load), "%.2f", n.cpu_load());
  std::string gres = NodeGres(n);
  // As Slurm: the sockets the GPUs are closest to, where the agent found them (NUMA node).
  std::set<int> sockets;
  for (const GpuInfo& g : n.gpus()) {
    if (g.has_numa_node()) sockets.insert(g.numa_node());
  }
  if (!sockets.empty()) {
    gres += "(S:" + FormatIdRanges({sockets.begin(), sockets.end()}) + ")";
  }
  std::string feats;
  for (const std::string& f : n.features()) feats += (feats.empty() ? "" : ",") + f;
  std::string parts;
  for (const std::string& p : n.partitions()) parts += (parts.empty() ? "" : ",") + p;
  std::string r = "NodeName=" + n.name() + " Arch=" + OrNull(n.arch()) +
                  " CoresPerSocket=" + std::to_string(n.cores_per_socket()) + " \n";
  r += "   CPUAlloc=" + std::to_string(n.alloc_cpus()) + " CPUEfctv=" + std::to_string(n.cpus()) +
       " CPUTot=" + std::to_string(n.cpus()) + " CPULoad=" + load + "\n";
  r += "   AvailableFeatures=" + OrNull(feats) + "\n   ActiveFeatures=" + OrNull(feats) + "\n";
  r += "   Gres=" + gres + "\n";
  r += "   NodeAddr=" + OrNull(n.addr()) + " NodeHostName=" + n.name() +
       " Version=" + OrNull(n.version()) + "\n";
  r += "   OS=" + OrNull(n.os()) + " \n";
  r += "   RealMemory=" + std::to_string(n.real_memory_mb()) +
       " AllocMem=" + std::to_string(n.alloc_mem_mb()) +
       " FreeMem=" + (n.has_free_mem_mb() ? std::to_string(n.free_mem_mb()) : "N/A") +
       " Sockets=" + std::to_string(n.sockets()) + " Boards=1\n";
  r += "   State=" + NodeStateScontrol(n) +
       " ThreadsPerCore=" + std::to_string(n.threads_per_core()) +
       " TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n";
  r += "   Partitions=" + parts + " \n";
  r += "   BootTime=" + TsOr(n.boot_time(), "None") +
       " SlurmdStartTime=" + TsOr(n.agent_start_time(), "None") + "\n";
  r += "   LastBusyTime=" + TsOr(n.last_busy_time(), "Unknown") + "\n";
  r += "   CfgTRES=" + NodeCfgTres(n) + "\n   AllocTRES=" + NodeAllocTres(n) + "\n";
  r += "   CapWatts=n/a\n   CurrentWatts=0 AveWatts=0\n";
  r += "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n";
  if (!n.reason().empty())
    r += "   Reason=" + n.reason() + " [" + user(n.reason_uid()) + "@" +
         TsOr(n.reason_time(), "Unknown") + "]\n";
  return r + "\n";
}

std::string FormatPartitionRecord(const PartitionInfo& p, const std::vector<NodeInfo>& nodes) {
  int64_t cpus = 0, mem = 0, gpus = 0, count = 0;
  for (const std::string& name : p.nodes()) {
    for (const NodeInfo& n : nodes) {
      if (n.name() != name) continue;
      cpus += n.cpus();
      mem += n.real_memory_mb();
      gpus += n.gpus_size();
    }
    ++count;
  }
  std::string tres = "cpu=" + std::to_string(cpus) + ",mem=" + FormatMemoryMb(mem) +
                     ",node=" + std::to_string(count) + ",billing=" + std::to_string(cpus);
  if (gpus > 0) tres += ",gres/gpu=" + std::to_string(gpus);
  std::string r = "PartitionName=" + p.name() + "\n";
  auto all = [](const std::string& v) { return v.empty() ? std::string("ALL") : v; };
  r += "   AllowGroups=" + all(p.allow_groups()) +
       (p.allow_accounts().empty() && !p.deny_accounts().empty()
            ? " DenyAccounts=" + p.deny_accounts()
            : " AllowAccounts=" + all(p.allow_accounts())) +
       " AllowQos=" + all(p.allow_qos()) + "\n";
  r += "   AllocNodes=ALL Default=" + std::string(p.is_default() ? "YES" : "NO") + " QoS=N/A\n";
  r += "   DefaultTime=" +
       (p.default_time_min() > 0 ? FormatHmsLimit(p.default_time_min()) : std::string("NONE")) +
       " DisableRootJobs=NO ExclusiveUser=NO GraceTime=" + std::to_string(p.grace_time_s()) +
       " Hidden=NO\n";
  r += "   MaxNodes=" + (p.max_nodes() > 0 ? std::to_string(p.max_nodes()) : "UNLIMITED") +
       " MaxTime=" + FormatHmsLimit(p.max_time_min()) +
       " MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n";
  r += "   Nodes=" + OrNull(p.nodes_expr()) + "\n";
  r += "   PriorityJobFactor=" + std::to_string(p.priority_job_factor()) +
       " PriorityTier=" + std::to_string(p.priority_tier()) +
       " RootOnly=NO ReqResv=NO OverSubscribe=" + (p.exclusive() ? "EXCLUSIVE" : "NO") + "\n";
  r += "   OverTimeLimit=NONE PreemptMode=" +
       (p.preempt_mode().empty() ? std::string("OFF") : p.preempt_mode()) + "\n";
  r += "   State=" + std::string(p.up() ? "UP" : "DOWN") + " TotalCPUs=" + std::to_string(cpus) +
       " TotalNodes=" + std::to_string(count) + " SelectTypeParameters=NONE\n";
  r += "   JobDefaults=(null)\n   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n";
  r += "   TRES=" + tres + "\n\n";
  return r;
}

std::string FormatReservationRecord(const ReservationInfo& r, int64_t now) {
  auto join = [](const auto& list, bool denied) {
    std::string out;
    for (const std::string& x : list) out += (out.empty() ? "" : ",") + x;
    if (out.empty()) return std::string("(null)");
    return (denied ? "-" : "") + out;
  };
  std::vector<std::string> nodes(r.nodes().begin(), r.nodes().end());
  std::string flags;
  for (const std::string& f : r.flags()) flags += (flags.empty() ? "" : ",") + f;
  const bool active = r.start_time() <= now && now < r.end_time();
  std::string s = "ReservationName=" + r.name() + " StartTime=" + FormatTimestamp(r.start_time()) +
                  " EndTime=" + FormatTimestamp(r.end_time()) +
                  " Duration=" + FormatHms(r.end_time() - r.start_time()) + "\n";
  s += "   Nodes=" + (nodes.empty() ? std::string("(null)") : CompressHostlistSorted(nodes)) +
       " NodeCnt=" + std::to_string(nodes.size()) + " CoreCnt=" + std::to_string(r.core_cnt()) +
       " Features=(null) PartitionName=" + OrNull(r.partition()) + " Flags=" + flags + "\n";
  s += "   TRES=" + OrNull(r.tres()) + "\n";
  s += "   Users=" + join(r.users(), r.users_denied()) +
       " Groups=(null) Accounts=" + join(r.accounts(), r.accounts_denied()) +
       " Licenses=(null) State=" + (active ? "ACTIVE" : "INACTIVE") +
       " BurstBuffer=(null) Watts=n/a\n";
  s += "   MaxStartDelay=(null)\n\n";
  return s;
}

std::string OneLiner(const std::string& record) {
  std::string r;
  for (size_t i = 0; i < record.size(); ++i) {
    if (record.compare(i, 4, "\n   ") == 0) {
      r += ' ';
      i += 3;
    } else {
      r += record[i];
    }
  }
  while (r.size() >= 2 && r[r.size() - 1] == '\n' && r[r.size() - 2] == '\n') r.pop_back();
  return r;
}

}  // namespace sluice
