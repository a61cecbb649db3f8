// --cpu-bind for one step task: which CPUs task `local_id` is bound to, and Slurm's
// verbose line. Modes: none/no (or nothing given): no binding; cores/threads/sockets/
// rank/ldoms: the task's own slice of the step's CPUs (cpus-per-task each, in order);
// map_cpu:a,b,...: CPU list[local_id % n]; q/quiet and v/verbose modify the report.
// Pure except ApplyCpuBind (sched_setaffinity on the calling process).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "node.pb.h"

namespace sluice {

struct CpuBindPlan {
  bool bind = false;
  bool verbose = false;
  std::vector<int> cpus;
};

CpuBindPlan PlanCpuBind(const StepLaunch& launch, int local_id);
// Task `local_id`'s own slice of the step's CPUs on this node (cpus-per-task each, in
// order, wrapping around); empty when the launch lists none.
std::vector<int> TaskCpuSlice(const StepLaunch& launch, int local_id);

// Binds the calling process. CPU ids this machine does not have (a simulated node with
// more CPUs than the host) are folded modulo the online CPU count. Returns the mask
// actually set as Slurm prints it ("0x3"), or "" when nothing was bound.
std::string ApplyCpuBind(const CpuBindPlan& plan);

// "cpu-bind=MASK - node01, task  1  1 [4242]: mask 0x2 set\n"
std::string CpuBindVerboseLine(const std::string& node, int rank, int local_id, pid_t pid,
                               const std::string& mask);

}  // namespace sluice
