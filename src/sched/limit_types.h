// Association and QOS limits as the scheduler sees them (plain data; the controller
// builds them from the sacctmgr database). A job counts against a list of scopes: its
// user association (MaxJobs/MaxWall/MaxTRES effective values inherited down the tree,
// plus its own Grp limits), each ancestor account (Grp limits over the subtree), its QOS
// (Grp and per-job limits) and its (QOS, user) pair (per-user limits). -1 = unlimited.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice::sched {

struct Tres {
  int64_t cpu = 0;
  int64_t mem_mb = 0;
  int64_t node = 0;
  int64_t gpu = 0;  // gres/gpu
};

struct TresLimit {
  int64_t cpu = -1;
  int64_t mem_mb = -1;
  int64_t node = -1;
  int64_t gpu = -1;
  bool Any() const { return cpu >= 0 || mem_mb >= 0 || node >= 0 || gpu >= 0; }
};

struct LimitScope {
  std::string label;        // in words, for `sluice why`: "account vision", "QOS normal"
  bool qos = false;         // reasons start with "QOS" (else "Assoc")
  int64_t max_jobs = -1;    // running jobs (QOS: per user, on the per-user scope)
  int64_t grp_jobs = -1;    // running jobs of the whole scope
  int64_t max_wall_s = -1;  // per job
  TresLimit grp_tres;       // running TRES of the whole scope
  TresLimit max_tres_per_job;
  TresLimit max_tres_per_user;  // QOS per-user scope: running TRES of the user
  TresLimit grp_tres_mins;      // cpu / gpu minutes: used + running remaining + the job
  double used_cpu_min = 0;      // decayed usage of the scope
  double used_gpu_min = 0;
};

struct LimitsInput {
  std::vector<LimitScope> scopes;
  std::map<int64_t, std::vector<int>> job_scopes;  // job id (pending and running) -> scopes
  struct Running {
    int64_t job_id = 0;
    Tres tres;
    int64_t remaining_s = 0;  // until its time limit (0 = unknown)
  };
  std::vector<Running> running;
  bool empty() const { return scopes.empty(); }
};

}  // namespace sluice::sched
