#include "ctld/components/job_table.h"

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
    case JOB_PENDING:
      return "PENDING";
    case JOB_RUNNING:
      return "RUNNING";
    case JOB_COMPLETING:
      return "COMPLETING";
    case JOB_COMPLETED:
      return "COMPLETED";
    case JOB_FAILED:
      return "FAILED";
    case JOB_CANCELLED:
      return "CANCELLED";
    case JOB_TIMEOUT:
      return "TIMEOUT";
    case JOB_NODE_FAIL:
      return "NODE_FAIL";
    case JOB_OUT_OF_MEMORY:
      return "OUT_OF_MEMORY";
    case JOB_PREEMPTED:
      return "PREEMPTED";
    default:
      return "UNKNOWN";
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

std::vector<JobInfo*> JobTable::Running() {
  std::vector<JobInfo*> out;
  for (int64_t id : not_pending_) {
    JobInfo* j = Find(id);
    if (j && j->state() == JOB_RUNNING) out.push_back(j);
  }
  return out;
}

JobInfo* JobTable::Insert(JobInfo job) {
  int64_t id = job.job_id();
  if (const JobInfo* old = Find(id)) Unindex(*old);
  auto [it, inserted] = jobs_.insert_or_assign(id, std::move(job));
  Index(it->second);
  return &it->second;
}

void JobTable::Erase(int64_t id) {
  if (const JobInfo* job = Find(id)) Unindex(*job);
  jobs_.erase(id);
  requests_.erase(id);
}

void JobTable::SetState(JobInfo* job, JobState state) {
  if (counters_) counters_->Count(job->state(), state);
  job->set_state(state);
  if (state == JOB_PENDING) {
    not_pending_.erase(job->job_id());
  } else {
    not_pending_.insert(job->job_id());
  }
}

void JobTable::Index(const JobInfo& job) {
  if (job.state() != JOB_PENDING) not_pending_.insert(job.job_id());
  if (job.spec().interactive()) interactive_.insert(job.job_id());
  by_uid_[job.uid()].insert(job.job_id());
  uids_by_name_[job.user()].insert(job.uid());
}

void JobTable::Unindex(const JobInfo& job) {
  not_pending_.erase(job.job_id());
  interactive_.erase(job.job_id());
  auto it = by_uid_.find(job.uid());
  if (it == by_uid_.end()) return;
  it->second.erase(job.job_id());
  if (it->second.empty()) by_uid_.erase(it);
}

const std::set<int64_t>& JobTable::OfUid(uint32_t uid) const {
  static const std::set<int64_t> kNone;
  auto it = by_uid_.find(uid);
  return it == by_uid_.end() ? kNone : it->second;
}

const std::set<uint32_t>& JobTable::UidsNamed(const std::string& name) const {
  static const std::set<uint32_t> kNone;
  auto it = uids_by_name_.find(name);
  return it == uids_by_name_.end() ? kNone : it->second;
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
