// JobTable: every job the controller tracks in memory (pending, running, and finished
// ones until they are purged after MinJobAge), keyed by job id in ascending order, so
// iteration order is FIFO submission order. Also caches each job's normalised
// scheduler request. Owned and used by the controller's owner thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sched/types.h"
#include "types.pb.h"

namespace sluice::ctld {

bool IsTerminal(JobState state);
// "PENDING", "RUNNING", ... as Slurm prints them.
const char* JobStateName(JobState state);
// Does this job still hold resources on its nodes?
inline bool HoldsResources(const JobInfo& j) {
  return j.state() == JOB_RUNNING || j.state() == JOB_COMPLETING || j.completing();
}
// Cancelled, timed out or requeued while running: its processes are being ended.
inline bool Ending(const JobInfo& j) { return j.completing() || j.state() == JOB_COMPLETING; }

class JobTable {
 public:
  JobInfo* Find(int64_t id);
  const JobInfo* Find(int64_t id) const;
  JobInfo* Insert(JobInfo job);
  void Erase(int64_t id);
  size_t size() const { return jobs_.size(); }

  std::map<int64_t, JobInfo>& jobs() { return jobs_; }
  const std::map<int64_t, JobInfo>& jobs() const { return jobs_; }

  // Cached scheduler request; set by the controller when a job is (re)validated.
  void SetRequest(int64_t id, sched::JobRequest req) { requests_[id] = std::move(req); }
  const sched::JobRequest* Request(int64_t id) const;
  sched::JobRequest* MutableRequest(int64_t id);

 private:
  std::map<int64_t, JobInfo> jobs_;
  std::map<int64_t, sched::JobRequest> requests_;
};

}  // namespace sluice::ctld
