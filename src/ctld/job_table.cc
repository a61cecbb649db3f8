#include "ctld/job_table.h"

namespace sluice::ctld {

bool IsTerminal(JobState state) {
  switch (state) {
    case JOB_COMPLETED:
    case JOB_FAILED:
    case JOB_CANCELLED:
    case JOB_TIMEOUT:
    case JOB_NODE_FAIL:
    case JOB_OUT_OF_MEMORY:
    case JOB_PREEMPTED:
      return true;
    default:
      return false;
  }
}

const char* JobStateName(JobState state) {
  switch (state) {
    case JOB_PENDING: return "PENDING";
    case JOB_RUNNING: return "RUNNING";
    case JOB_COMPLETING: return "COMPLETING";
    case JOB_COMPLETED: return "COMPLETED";
    case JOB_FAILED: return "FAILED";
    case JOB_CANCELLED: return "CANCELLED";
    case JOB_TIMEOUT: return "TIMEOUT";
    case JOB_NODE_FAIL: return "NODE_FAIL";
    case JOB_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case JOB_PREEMPTED: return "PREEMPTED";
    default: return "UNKNOWN";
  }
}

JobInfo* JobTable::Find(int64_t id) {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

const JobInfo* JobTable::Find(int64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

JobInfo* JobTable::Insert(JobInfo job) {
  int64_t id = job.job_id();
  auto [it, inserted] = jobs_.insert_or_assign(id, std::move(job));
  return &it->second;
}

void JobTable::Erase(int64_t id) {
  jobs_.erase(id);
  requests_.erase(id);
}

const sched::JobRequest* JobTable::Request(int64_t id) const {
  auto it = requests_.find(id);
  return it == requests_.end() ? nullptr : &it->second;
}

sched::JobRequest* JobTable::MutableRequest(int64_t id) {
  auto it = requests_.find(id);
  return it == requests_.end() ? nullptr : &it->second;
}

}  // namespace sluice::ctld
