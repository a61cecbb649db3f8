// ForkInto: fork() whose child runs inside a cgroup from its first instruction.
//
// Moving a process by writing cgroup.procs takes the kernel's threadgroup lock for
// writing, which waits for an RCU grace period: ~10 ms on an idle host (bench/RESULTS.md,
// "Step launch"), paid by every step. On cgroup v2 (Linux 5.7+) the child is created in
// the cgroup instead (clone3 with CLONE_INTO_CGROUP), which costs nothing extra. On
// cgroup v1, older kernels or any clone3 error the child is forked normally and moves
// itself (best effort): on v1 by writing "0" to `tasks`, which moves only the calling
// thread (all of the new child) without that lock.
//
// For single-threaded callers only (the stepd supervisors): the raw clone3 skips glibc's
// fork bookkeeping, which only matters when other threads hold libc locks.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sluice {

// Returns like fork(): the child's pid in the parent, 0 in the child, -1 on error.
// An empty `cgroup_dir` is a plain fork(). The child also moves itself into each of
// `also_join` (v1 cgroups of other controllers, e.g. devices: device_fence.h), or exits
// 126 when it cannot.
pid_t ForkInto(const std::string& cgroup_dir, const std::vector<std::string>& also_join = {});

}  // namespace sluice
