#include "noded/job_tracker.h"

#include <signal.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "stepd/job_dir.h"

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

// True when `pid` exists but its /proc cmdline is still empty (mid-exec).
static bool ExecInProgress(pid_t pid) {
  auto cmdline = ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline");
  return cmdline.ok() && cmdline->empty();
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
  if (ReadProtoFile(dir.StatusFile(), &job.report).ok()) {
    job.phase = PathExists(dir.ReportedMarker()) ? TrackedJob::Phase::kDone
                                                 : TrackedJob::Phase::kFinished;
    job.report.set_job_id(job_id);
    return job;
  }
  auto pid = ReadPidFile(dir.PidFile());
  if (pid.ok()) {
    job.stepd_pid = *pid;
    job.phase = IsStepdProcess(*pid, dir.path()) ? TrackedJob::Phase::kRunning
                                                 : TrackedJob::Phase::kLost;
    // stepd writes status.pb and then exits: it may have done both since the read above.
    if (job.phase == TrackedJob::Phase::kLost && ReadProtoFile(dir.StatusFile(), &job.report).ok()) {
      job.phase = TrackedJob::Phase::kFinished;
      job.report.set_job_id(job_id);
    }
    // Right after posix_spawn the new stepd's /proc cmdline can still be empty (the
    // kernel fills it late in exec): a young launch is not lost yet.
    if (job.phase == TrackedJob::Phase::kLost && ::kill(*pid, 0) == 0 && YoungLaunch(dir) &&
        ExecInProgress(*pid)) {
      job.phase = TrackedJob::Phase::kRunning;
    }
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

Status JobTracker::MarkLost(int64_t job_id) const {
  JobReport r;
  r.set_job_id(job_id);
  r.set_finished(true);
  r.set_state(JOB_FAILED);
  r.set_exit_code(1);
  r.set_end_time(clock_->Now());
  return WriteProtoFile(JobDir(DirFor(job_id)).StatusFile(), r, 0644);
}

Status JobTracker::MarkDone(int64_t job_id) const {
  return WriteFileAtomic(JobDir(DirFor(job_id)).ReportedMarker(), "", 0644, /*sync=*/false);
}

Status JobTracker::Remove(int64_t job_id) const { return RemoveTree(DirFor(job_id)); }

}  // namespace sluice
