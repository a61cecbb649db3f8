#include "cli/job_view.h"

#include <vector>

#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice {

std::string JobNodeList(const JobInfo& job) {
  std::vector<std::string> nodes;
  for (const NodeAlloc& a : job.alloc()) nodes.push_back(a.node());
  return nodes.empty() ? "" : CompressHostlistSorted(std::move(nodes));
}

std::string JobBatchHost(const JobInfo& job) {
  return job.alloc().empty() ? "" : job.alloc(0).node();
}

int64_t JobTotalGpus(const JobInfo& job) {
  if (!job.alloc().empty()) {
    int64_t n = 0;
    for (const NodeAlloc& a : job.alloc()) n += a.gpu_ids_size();
    return n;
  }
  if (job.gpus_per_node() > 0) return int64_t{job.gpus_per_node()} * std::max(1, job.num_nodes());
  return job.spec().gpus_total();
}

int64_t JobTotalMemMb(const JobInfo& job) {
  if (!job.alloc().empty()) {
    int64_t n = 0;
    for (const NodeAlloc& a : job.alloc()) n += a.mem_mb();
    if (n > 0) return n;
  }
  if (job.mem_per_node_mb() > 0) return job.mem_per_node_mb() * std::max(1, job.num_nodes());
  return job.spec().mem_per_cpu_mb() * job.num_cpus();
}

std::string JobTresString(const JobInfo& job) {
  std::string s = "cpu=" + std::to_string(job.num_cpus());
  int64_t mem = JobTotalMemMb(job);
  if (mem > 0) s += ",mem=" + FormatMemoryMb(mem);
  s += ",node=" + std::to_string(job.num_nodes());
  s += ",billing=" + std::to_string(job.num_cpus());
  if (int64_t gpus = JobTotalGpus(job); gpus > 0) s += ",gres/gpu=" + std::to_string(gpus);
  return s;
}

std::string JobTresPerNode(const JobInfo& job) {
  std::string out;
  for (const GresRequest& g : job.spec().gres_per_node()) {
    if (!out.empty()) out += ",";
    out += "gres:" + g.name() + (g.type().empty() ? "" : ":" + g.type()) + ":" +
           std::to_string(g.count());
  }
  if (out.empty() && job.gpus_per_node() > 0) {
    out = "gres:gpu:" + (job.gpu_type().empty() ? "" : job.gpu_type() + ":") +
          std::to_string(job.gpus_per_node());
  }
  return out;
}

int64_t JobRunSeconds(const JobInfo& job, int64_t now) {
  if (job.start_time() <= 0 || job.state() == JOB_PENDING) return 0;
  int64_t end = job.end_time() > 0 && job.state() != JOB_RUNNING ? job.end_time() : now;
  return std::max<int64_t>(0, end - job.start_time());
}

int64_t JobEndTime(const JobInfo& job) {
  if (job.end_time() > 0) return job.end_time();
  if (job.start_time() > 0 && job.time_limit_min() > 0)
    return job.start_time() + job.time_limit_min() * 60;
  return 0;
}

std::string JobExitCode(const JobInfo& job) {
  return std::to_string(job.exit_code()) + ":" + std::to_string(job.term_signal());
}

bool JobShowsReason(const JobInfo& job) {
  switch (job.state()) {
    case JOB_PENDING:
    case JOB_FAILED:
    case JOB_TIMEOUT:
    case JOB_OUT_OF_MEMORY:
      return true;
    default:
      return false;
  }
}

}  // namespace sluice
