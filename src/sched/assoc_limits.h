// Association / QOS limits during a scheduling pass (Slurm's AccountingStorageEnforce=
// limits): a LimitsTracker counts the running jobs and TRES of every scope in
// ClusterSnapshot::limits (limit_types.h) and answers whether a pending job may start
// now without any scope exceeding a limit; starts of this pass are added with Start().
// Jobs held back get Slurm's pending reasons (AssocMaxJobsLimit, AssocGrpGRES,
// QOSMaxGRESPerUser, AssocMaxWallDurationPerJobLimit, ...). Pure.
//
// TRES strings: "cpu=64,mem=100G,node=2,gres/gpu=8" (mem takes Slurm sizes, default MB;
// a value of -1 clears that TRES). Formatting orders cpu, mem, node, gres/gpu.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sched/types.h"

namespace sluice::sched {

Expected<TresLimit> ParseTresLimit(std::string_view s);
std::string FormatTresLimit(const TresLimit& t);
// Applies `s` on top of `base` (only the TRES named in `s` change).
Expected<TresLimit> MergeTresLimit(const TresLimit& base, std::string_view s);

Tres TresOf(const JobRequest& job);

// Whether `s` limits anything (a scope without limits need not be checked).
bool LimitsAnything(const LimitScope& s);

// Adds scopes to a LimitsInput once per key (e.g. "u:alice/physics", "q:normal"), so jobs
// sharing an association or QOS share its scope: Get returns the scope's index, building it
// with `make` the first time; -1 when it limits nothing (then it is not added).
class LimitScopeIndex {
 public:
  explicit LimitScopeIndex(LimitsInput* in) : in_(in) {}
  template <typename Make>
  int Get(const std::string& key, Make make) {
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    LimitScope s = make();
    int i = -1;
    if (LimitsAnything(s)) {
      i = static_cast<int>(in_->scopes.size());
      in_->scopes.push_back(s);
    }
    index_.emplace(key, i);
    return i;
  }

 private:
  LimitsInput* in_;
  std::map<std::string, int> index_;
};

// The first limit in a job's way, with its numbers (for `sluice why`).
struct LimitBlock {
  std::string reason;  // Slurm's pending reason ("" = nothing in the way)
  int scope = -1;      // index into LimitsInput::scopes
  std::string limit;   // as sacctmgr names it: "GrpTRES=gres/gpu=64", "MaxJobs=2", "MaxWall=60"
  int64_t in_use = 0;  // what the scope's running jobs hold of it (minutes for GrpTRESMins)
  int64_t asks = 0;    // what the job would add
};

class LimitsTracker {
 public:
  explicit LimitsTracker(const LimitsInput& input);
  // "" when `job` may start now; else the pending reason of the first limit in the way.
  std::string Check(const JobRequest& job) const;
  LimitBlock Block(const JobRequest& job) const;  // the same, with its numbers
  // Counts `job` as running in its scopes.
  void Start(const JobRequest& job);
  bool empty() const { return input_.empty(); }

  struct Count {
    int64_t jobs = 0;
    Tres tres;
    double run_cpu_min = 0;  // remaining minutes of running jobs (GrpTRESMins)
    double run_gpu_min = 0;
  };
  const std::vector<Count>& counts() const { return counts_; }

 private:
  void Add(const std::vector<int>& scopes, const Tres& t, int64_t remaining_s);
  const LimitsInput& input_;
  std::vector<Count> counts_;
};

}  // namespace sluice::sched
