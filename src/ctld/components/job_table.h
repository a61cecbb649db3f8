// JobTable: every job the controller tracks in memory (pending, running, and finished
// ones until they are purged after MinJobAge), keyed by job id in ascending order, so
// iteration order is FIFO submission order. Also caches each job's normalised
// scheduler request, and the indexes queries use (GetJobs): the jobs that are not
// pending, and the jobs of each user; and the interactive allocations (client leases). Owned and
// used by the controller's owner thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ctld/components/ctld_stats.h"
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
// The pending reason to show and explain: a job held with priority 0 and no reason of its
// own is JobHeldUser.
inline std::string PendingReason(const JobInfo& j) {
  return j.priority() == 0 && j.reason() == "None" ? "JobHeldUser" : j.reason();
}
// Cancelled, timed out or requeued while running: its processes are being ended.
inline bool Ending(const JobInfo& j) { return j.completing() || j.state() == JOB_COMPLETING; }
// No batch supervisor reports its end: an interactive allocation (salloc, srun), or a
// heterogeneous job's component other than the first (whose script runs for all).
inline bool NoBatchScript(const JobInfo& j) {
  return j.spec().interactive() || j.het_job_offset() > 0;
}

class JobTable {
 public:
  JobInfo* Find(int64_t id);
  const JobInfo* Find(int64_t id) const;
  JobInfo* Insert(JobInfo job);
  void Erase(int64_t id);
  size_t size() const { return jobs_.size(); }

  // The one way to change the state of a job in the table (it keeps the index of the jobs
  // not pending current): never job->set_state() on a job found here.
  void SetState(JobInfo* job, JobState state);
  // Where SetState counts the transitions it makes (sdiag); none by default.
  void CountInto(JobCounters* counters) { counters_ = counters; }

  // Indexes (ascending job ids). A job's uid and user name never change once inserted.
  // Every job whose state is not PENDING.
  const std::set<int64_t>& NotPending() const { return not_pending_; }
  size_t PendingCount() const { return jobs_.size() - not_pending_.size(); }
  // The jobs in state RUNNING, from that index: a list, so that their states may change
  // while it is walked (Tick's checks).
  std::vector<JobInfo*> Running();
  // The jobs of `uid`.
  const std::set<int64_t>& OfUid(uint32_t uid) const;
  // The uids of the jobs whose user name is `name` (one, unless names were reused).
  const std::set<uint32_t>& UidsNamed(const std::string& name) const;
  // The interactive allocations (salloc, srun outside a job: spec.interactive, which never
  // changes once inserted), whatever their state.
  const std::set<int64_t>& Interactive() const { return interactive_; }

  std::map<int64_t, JobInfo>& jobs() { return jobs_; }
  const std::map<int64_t, JobInfo>& jobs() const { return jobs_; }

  // Cached scheduler request; set by the controller when a job is (re)validated.
  void SetRequest(int64_t id, sched::JobRequest req) { requests_[id] = std::move(req); }
  void ClearRequest(int64_t id) { requests_.erase(id); }  // the job cannot be scheduled
  const sched::JobRequest* Request(int64_t id) const;
  sched::JobRequest* MutableRequest(int64_t id);

 private:
  void Index(const JobInfo& job);
  void Unindex(const JobInfo& job);

  JobCounters* counters_ = nullptr;

  std::map<int64_t, JobInfo> jobs_;
  std::map<int64_t, sched::JobRequest> requests_;
  std::set<int64_t> not_pending_;
  std::set<int64_t> interactive_;
  std::map<uint32_t, std::set<int64_t>> by_uid_;
  std::map<std::string, std::set<uint32_t>> uids_by_name_;  // never shrinks: one per user
};

}  // namespace sluice::ctld
