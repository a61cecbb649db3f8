#include "noded/job_tracker.h"

#include <signal.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "node_common/job_dir.h"

namespace sluice {

int64_t JobIdFromDirName(const std::string& name) {
  if (name.rfind("job.", 0) != 0 || name.size() == 4) return 0;
  for (size_t i = 4; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
  }
  return std::atoll(name.c_str() + 4);
}

Status JobTracker::Init() const {
  std::error_code ec;
  std::filesystem::create_directories(spool_, ec);
  if (ec) return Internal("cannot create spool directory " + spool_ + ": " + ec.message());
  ::chmod(spool_.c_str(), 0755);
  return Status::Ok();
}

std::string JobTracker::DirFor(int64_t job_id) const {
  return spool_ + "/" + JobDir::NameFor(job_id);
}

std::vector<TrackedJob> JobTracker::Scan() const {
  std::vector<int64_t> ids;
  if (DIR* d = ::opendir(spool_.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      if (int64_t id = JobIdFromDirName(e->d_name); id > 0) ids.push_back(id);
    }
    ::closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  std::vector<TrackedJob> out;
  for (int64_t id : ids) {
    auto job = Inspect(id);
    if (job.ok()) out.push_back(std::move(job).value());
  }
  return out;
}

bool JobTracker::YoungLaunch(const JobDir& dir) const {
  struct stat ls;
  return ::stat(dir.Launch().c_str(), &ls) == 0 && clock_->Now() - ls.st_mtime < kStartGraceS;
}

Expected<TrackedJob> JobTracker::Inspect(int64_t job_id) const {
  JobDir dir(DirFor(job_id));
  struct stat st;
  if (::stat(dir.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return NotFound("no job directory for job " + std::to_string(job_id));
  }
  TrackedJob job;
  job.job_id = job_id;
  job.dir = dir.path();
  auto finished = [&]() {
    if (!ReadProtoFile(dir.StatusFile(), &job.report).ok()) return false;
    job.phase =
        PathExists(dir.ReportedMarker()) ? TrackedJob::Phase::kDone : TrackedJob::Phase::kFinished;
    job.report.set_job_id(job_id);
    return true;
  };
  if (finished()) return job;
  auto pid = ReadPidFile(dir.PidFile());
  if (pid.ok()) job.stepd_pid = *pid;
  std::optional<bool> held = StepdLockHeld(dir);
  if (held.has_value()) {
    // Not held: it may have written its status and exited meanwhile.
    if (*held)
      job.phase = TrackedJob::Phase::kRunning;
    else if (!finished())
      job.phase = TrackedJob::Phase::kLost;
    return job;
  }
  // No lock yet: the stepd is starting, unless the process the agent spawned is gone.
  if (pid.ok() && ::kill(*pid, 0) != 0 && errno == ESRCH) {
    job.phase = TrackedJob::Phase::kLost;
    return job;
  }
  job.phase = YoungLaunch(dir) ? TrackedJob::Phase::kRunning : TrackedJob::Phase::kLost;
  return job;
}

Expected<BatchLaunch> JobTracker::ReadLaunch(int64_t job_id) const {
  BatchLaunch l;
  RETURN_IF_ERROR(ReadProtoFile(JobDir(DirFor(job_id)).Launch(), &l));
  return l;
}

Status JobTracker::Create(const BatchLaunch& launch) const {
  JobDir dir(DirFor(launch.job_id()));
  if (::mkdir(dir.path().c_str(), 0755) != 0) {
    if (errno == EEXIST) return Status(Code::kAlreadyExists, "job directory exists");
    return Internal("mkdir " + dir.path() + ": " + std::strerror(errno));
  }
  Status st = WriteProtoFile(dir.Launch(), launch, 0600, /*sync=*/false);
  if (!st.ok()) RemoveTree(dir.path());
  return st;
}

Status JobTracker::RecordStepdPid(int64_t job_id, pid_t pid) const {
  return WritePidFile(JobDir(DirFor(job_id)).PidFile(), pid);
}

Status JobTracker::MarkLost(int64_t job_id, bool stepd_started) const {
  JobReport r;
  r.set_job_id(job_id);
  r.set_finished(true);
  r.set_state(stepd_started ? JOB_FAILED : JOB_NODE_FAIL);
  r.set_exit_code(stepd_started ? 1 : 0);
  r.set_end_time(clock_->Now());
  return WriteProtoFile(JobDir(DirFor(job_id)).StatusFile(), r, 0644);
}

Status JobTracker::MarkDone(int64_t job_id) const {
  return WriteFileAtomic(JobDir(DirFor(job_id)).ReportedMarker(), "", 0644, /*sync=*/false);
}

Status JobTracker::Remove(int64_t job_id) const { return RemoveTree(DirFor(job_id)); }

}  // namespace sluice
