// JobTracker: the agent's view of its spool directory (<spool>/job.<id>/, layout in
// node_common/job_dir.h). Everything it reports is derived from the files, so an agent that
// restarts re-adopts running stepds and still reports finished-but-unreported jobs:
//   status.pb present                 -> kFinished (kDone when the `reported` marker exists)
//   stepd.pid names a live sluice-stepd -> kRunning
//   no pid file, launch.pb < kStartGraceS old -> kRunning (stepd starting)
//   otherwise                         -> kLost (stepd died without a status)
// Thread-compatible: callers serialize access (the Agent holds a mutex).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "node.pb.h"
#include "node_common/job_dir.h"

namespace sluice {

struct TrackedJob {
  enum class Phase { kRunning, kFinished, kDone, kLost };
  int64_t job_id = 0;
  std::string dir;
  Phase phase = Phase::kLost;
  JobReport report;  // valid for kFinished / kDone
  pid_t stepd_pid = 0;
};

class JobTracker {
 public:
  static constexpr int64_t kStartGraceS = 10;

  JobTracker(std::string spool_dir, const Clock* clock)
      : spool_(std::move(spool_dir)), clock_(clock) {}

  // Creates the spool directory (and parents) if needed.
  Status Init() const;
  const std::string& spool() const { return spool_; }
  std::string DirFor(int64_t job_id) const;

  // Every job directory in the spool, ordered by job id.
  std::vector<TrackedJob> Scan() const;
  // NotFound when the job has no directory.
  Expected<TrackedJob> Inspect(int64_t job_id) const;
  Expected<BatchLaunch> ReadLaunch(int64_t job_id) const;

  // Creates job.<id>/ and writes launch.pb; AlreadyExists when the directory exists.
  Status Create(const BatchLaunch& launch) const;
  Status RecordStepdPid(int64_t job_id, pid_t pid) const;
  // Writes the status of a job whose stepd vanished without one: FAILED, or NODE_FAIL (the
  // controller requeues it) when the stepd never started, as when the agent stopped between
  // writing launch.pb and spawning it: none of the job's code ran.
  Status MarkLost(int64_t job_id, bool stepd_started) const;
  // The end need not (or no longer) be sent to the controller.
  Status MarkDone(int64_t job_id) const;
  Status Remove(int64_t job_id) const;

 private:
  bool YoungLaunch(const JobDir& dir) const;  // launch.pb written < kStartGraceS ago
  std::string spool_;
  const Clock* clock_;
};

// Parses "job.<id>" -> id, or 0.
int64_t JobIdFromDirName(const std::string& name);

}  // namespace sluice
