// JobScripts: the batch scripts, exported environments and propagated resource limits
// (what only the batch shell's launch needs) of the jobs the controller tracks. They live in the
// StateStore, not in the job records, so a queued job costs the controller its record only and
// queries never copy them: written with the submission's commit, read when a job is launched or a
// query asks for them (scontrol show job -d, scontrol write batch_script), deleted when the last
// job using one is purged. An array's tasks share the script of their array job (one row, counted
// references).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "storage/state_store.h"
#include "types.pb.h"

namespace sluice::ctld {

class JobScripts {
 public:
  // `store` may be null (then scripts stay in memory: benchmarks without a store).
  explicit JobScripts(storage::StateStore* store) : store_(store) {}

  // Moves spec.script, spec.env and spec.rlimits out of a new job, to be stored under `key` (the
  // job's ScriptKey) for `refs` jobs (an array's tasks).
  void Take(int64_t key, JobSpec* spec, int refs);
  // A job loaded from the store counts its reference; a record written by an older
  // version still holds its script, environment or limits: they are moved out, joining
  // what the store already keeps for it (true: the job record changed and must be
  // written again). Errors: the store could not be read.
  Expected<bool> Adopt(JobInfo* job);
  // The job `job` was purged; its script is deleted with the last reference.
  void Release(const JobInfo& job);
  // The script, environment and limits of `job` (empty when it has none: an interactive job).
  Expected<JobScript> Get(const JobInfo& job) const;

  // What to write with the next commit, and that it was written. Scripts stay in memory
  // (Get serves them) until the commit that writes them is durable; those taken or
  // released meanwhile go with a later commit.
  struct Written {
    std::vector<int64_t> put;
    std::vector<int64_t> deleted;
  };
  Written AddTo(storage::WriteBatch* batch) const;
  void Committed(const Written& written);

  size_t unwritten() const { return unwritten_.size(); }

 private:
  storage::StateStore* store_;
  std::map<int64_t, int> refs_;
  std::map<int64_t, JobScript> unwritten_;  // taken, not yet committed
  std::vector<int64_t> deleted_;            // released, the delete not yet committed
};

// The id a job's script is stored under: its array job's for an array task, else its own.
inline int64_t ScriptKey(const JobInfo& job) {
  return job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
}

}  // namespace sluice::ctld
