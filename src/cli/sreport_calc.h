// sreport's arithmetic (pure): usage of accounting records inside a time window.
//   ClusterUtilization: Allocated = sum over job attempts of TRES count x seconds of
//   their run inside [start, end); Reported = cluster capacity (sum of the nodes' CPUs
//   or GPUs) x window length; Down = sum over node events (DOWN / DRAIN) of their
//   time inside the window x the node's TRES; PLND Down the same for MAINT events
//   (nodes inside a Flags=MAINT reservation); Reserved is 0 (idle time held for pending
//   jobs is not recorded); when Allocated + Down + PLND Down exceed Reported (a draining
//   node still running jobs) Down, then PLND Down, give way; Idle = Reported - Allocated
//   - Down - PLND Down - Reserved (never negative), so the columns add up to Reported.
//   TRES: "cpu" (default), "gres/gpu" (GPU-seconds) or "node".
//   TopUsers: (user, account) usage in TRES-seconds, most first, ties by user name.
//   With "gres/gpuutil" (TopUsers only) the usage is the GPU-seconds the jobs kept busy,
//   from the steps' sampled utilization (GpuBusySeconds), to set beside "gres/gpu".
// Still-running attempts count until `now`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client.pb.h"

namespace sluice {

struct Utilization {
  int64_t allocated = 0;  // TRES-seconds
  int64_t down = 0;
  int64_t planned_down = 0;
  int64_t idle = 0;
  int64_t reserved = 0;
  int64_t reported = 0;
};

struct UserUsage {
  std::string user;
  std::string account;
  int64_t used = 0;  // TRES-seconds
};

// Seconds of [a, b) inside [start, end) (b <= 0 means still running: `now`).
int64_t Overlap(int64_t a, int64_t b, int64_t start, int64_t end, int64_t now);
int64_t TresCount(const AcctJob& j, const std::string& tres);
int64_t TresCount(const NodeEventRecord& e, const std::string& tres);
Utilization ClusterUtilization(const std::vector<AcctJob>& jobs, int64_t capacity,
                               const std::string& tres, int64_t start, int64_t end, int64_t now,
                               const std::vector<NodeEventRecord>& events = {});
std::vector<UserUsage> TopUsers(const std::vector<AcctJob>& jobs, const std::string& tres,
                                int64_t start, int64_t end, int64_t now, size_t top,
                                const std::vector<AcctStep>& steps = {});
// GPU-seconds inside the window that job attempt `j` kept busy: its srun steps' average
// gres/gpuutil (percent of one GPU, summed over their GPUs) x their time, or, when no srun
// step was sampled, its batch step's over the attempt's run. 0 when nothing was sampled.
int64_t GpuBusySeconds(const AcctJob& j, const std::vector<const AcctStep*>& steps, int64_t start,
                       int64_t end, int64_t now);

}  // namespace sluice
