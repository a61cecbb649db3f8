// StepTable: the running steps of every job and the client leases of srun/salloc, in
// memory only. srun keeps its step's lease with a Keepalive every second; a step whose
// client was silent longer than the lease loses its resources, and an interactive
// allocation (salloc, standalone srun) whose client went silent is released by the
// controller. After a controller restart the agents' registrations report their running
// steps (Restore), one node's share at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ctld/components/step_resources.h"
#include "node.pb.h"

namespace sluice::ctld {

class StepTable {
 public:
  using Steps = std::map<int, ActiveStep>;  // step id -> step

  const Steps* Of(int64_t job_id) const;  // nullptr: none running
  std::vector<ActiveStep> Running(int64_t job_id) const;
  const ActiveStep* Find(int64_t job_id, int step_id) const;  // nullptr: none
  const std::map<int64_t, Steps>& all() const { return steps_; }

  const ActiveStep& Add(int64_t job_id, ActiveStep step);
  // srun's keepalive for these steps of the job.
  void Touch(int64_t job_id, const std::vector<int>& step_ids, int64_t now_ms);
  // The step ended (srun said so); false if it was not running.
  bool End(int64_t job_id, int step_id);
  // Node `node` reports that its share of step `r` runs (registration after a restart):
  // the step is known again, its client's keepalives take over from `now_ms`.
  void Restore(const RunningStep& r, const std::string& node, int64_t now_ms);
  // Drops every step of a job that is not running (`running(job_id)` false) and every
  // step whose client was silent longer than `lease_ms`.
  void Expire(int64_t now_ms, int64_t lease_ms, const std::function<bool(int64_t job_id)>& running);

  // Interactive allocations: the client's lease, armed when the job is first seen.
  void SeeAllocation(int64_t job_id, int64_t now_ms) { alloc_seen_ms_[job_id] = now_ms; }
  // For a live allocation: true when its client was silent longer than `lease_ms`.
  bool AllocationSilent(int64_t job_id, int64_t now_ms, int64_t lease_ms);
  void ForgetAllocation(int64_t job_id) { alloc_seen_ms_.erase(job_id); }

 private:
  std::map<int64_t, Steps> steps_;            // job -> its running steps
  std::map<int64_t, int64_t> alloc_seen_ms_;  // interactive job -> last keepalive
};

}  // namespace sluice::ctld
