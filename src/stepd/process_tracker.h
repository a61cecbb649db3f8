// ProcessTracker: finds and signals every process of one job. Strategy, best first:
//   cgroup v2  <root>/sluice/job_<id>[.<stepd pid>] (root = /sys/fs/cgroup, a v2 mount);
//              the batch script runs in its leaf `batch`, so that the job's steps can
//              have memory-limited cgroups beside it (v2 puts no process in inner nodes)
//   cgroup v1  <memory root>/sluice/job_<id>[.<stepd pid>] (memory controller only)
//   fallback   the job's process group
// A job step's tasks get <job cgroup>/step_<id> (CreateStep), limited to the step's memory.
// In every mode stepd is a child subreaper, so descendants that escape the process
// group (setsid, double fork) are re-parented to stepd and are found by walking /proc
// for stepd's descendants. Memory limits and OOM detection need a cgroup.
// Not thread-safe; owned by the supervisor loop.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "stepd/device_fence.h"

namespace sluice {

struct CgroupRoots {
  std::string v2 = "/sys/fs/cgroup";  // used when <v2>/cgroup.controllers exists
  std::string v1_memory = "/sys/fs/cgroup/memory";
  std::string v1_devices = "/sys/fs/cgroup/devices";  // ConstrainDevices on v1
};

class ProcessTracker {
 public:
  enum class Mode { kCgroupV2, kCgroupV1, kProcessGroup };

  // Creates the job's cgroup where possible; never fails (falls back to process group).
  // `batch_leaf`: on v2, children go to the leaf `batch` (the batch supervisor; a step's
  // own cgroup has no steps beside it and takes its tasks directly).
  static std::unique_ptr<ProcessTracker> Create(int64_t job_id, const CgroupRoots& roots,
                                                bool batch_leaf = true);
  // The cgroup `name` inside the job cgroup `job_dir` (v1 or v2), for one step's tasks.
  static std::unique_ptr<ProcessTracker> CreateStep(const std::string& job_dir,
                                                    const std::string& name);
  ~ProcessTracker();

  Mode mode() const { return mode_; }
  const std::string& cgroup_dir() const { return dir_; }     // the whole job (or step)
  const std::string& fork_dir() const { return fork_dir_; }  // where ForkChild puts children
  // Sets the memory limit (bytes); no-op without a cgroup.
  Status SetMemoryLimit(int64_t bytes);
  // Denies the device files `files` to the processes forked from now on (device_fence.h):
  // on v2 a device program on the cgroup, on v1 a devices cgroup beside the memory one
  // (its path below `roots.v1_devices` as the memory cgroup's below `roots.v1_memory`).
  // FailedPrecondition without a cgroup; an error for a file that is not a device.
  Status DenyDevices(const CgroupRoots& roots, const std::vector<std::string>& files);
  // fork() whose child is already in the job's cgroup(s) (cgroup_fork.h).
  pid_t ForkChild() const;
  // The job's main process (also its process group id).
  void SetLeader(pid_t pid) { leader_ = pid; }

  // Signals every process of the job. Returns the number signalled.
  int SignalAll(int sig);
  // Processes of the job still alive (not zombies).
  std::vector<pid_t> Alive() const;
  // True when the kernel OOM-killed a process of the job.
  bool OomKilled() const;
  // Removes the cgroup and the (empty) ones below it.
  void Remove();

 private:
  ProcessTracker() = default;
  std::vector<pid_t> CgroupPids() const;  // of the cgroup and every cgroup below it
  Mode mode_ = Mode::kProcessGroup;
  std::string dir_;
  std::string fork_dir_;
  std::string devices_dir_;  // v1: the devices cgroup children join too ("" = none)
  pid_t leader_ = 0;
};

// Live (non-zombie) descendants of `root` found by walking /proc.
std::vector<pid_t> DescendantsOf(pid_t root);

}  // namespace sluice
