// Forks and execs the batch script of a job as its user:
//   child joins the job's cgroup, setsid(), initgroups/setgid/setuid (when stepd runs
//   as root; otherwise the job must belong to stepd's own uid), chdir(work_dir) or /tmp
//   when that fails (as Slurm does), stdin from stdin_path or /dev/null, stdout/stderr
//   opened as the user (created, truncated unless append_output; one file when both
//   paths are equal; relative paths are relative to the working directory; default
//   slurm-<jobid>.out), environment from BuildBatchEnv, then execs <jobdir>/script.
// Errors before the exec are written to stepd's stderr (the job's output file once it
// is open) and the child exits with kSetupFailedExit.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "node.pb.h"
#include "node_common/job_dir.h"
#include "stepd/process_tracker.h"

namespace sluice {

inline constexpr int kSetupFailedExit = 1;

struct UserIds {
  uid_t uid;
  gid_t gid;
  std::string name;  // empty when the uid has no passwd entry
  // Supplementary groups (getgrouplist), resolved once in the parent when running as
  // root so that forked children need no NSS lookups; empty = use initgroups.
  std::vector<gid_t> groups;
};
// The job's uid/gid, user name (getpwuid_r) and, as root, its group list.
UserIds ResolveUser(const JobInfo& job);
// In a forked child: initgroups/setgid/setuid when root; otherwise the uid must be our
// own. On failure writes "sluice-stepd: error: ..." to stderr and _exits.
void DropPrivileges(const UserIds& u);

// In a forked child, before DropPrivileges (so that root may raise a hard limit): the
// submitting shell's limits (--propagate); returns "slurmstepd: error: ..." lines for
// those that could not be set.
std::string ApplyPropagatedLimits(const google::protobuf::RepeatedPtrField<ResourceLimit>& limits);

// Writes <jobdir>/script (mode 0700, owned by the job's user).
Status WriteJobScript(const JobDir& dir, const BatchLaunch& launch);

// Starts the job; returns the pid of the script process (also its session and
// process group id).
Expected<pid_t> SpawnJob(const JobDir& dir, const BatchLaunch& launch, ProcessTracker* tracker);

}  // namespace sluice
