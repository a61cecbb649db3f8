// Layout of one job's directory in the node agent's spool (<spool>/job.<id>/) and the
// small file helpers both the agent and stepd use on it:
//   launch.pb   BatchLaunch written by the agent (0600) before stepd starts
//   stepd.pid   pid of the supervising sluice-stepd
//   stepd.sock  stepd's control socket (see proto/stepd.proto)
//   stepd.log   stepd's own stderr
//   cgroup      path of the job's cgroup on this node (absent without one); the job's
//               steps on this node join it
//   script      the batch script (0700, owned by the job's user)
//   status.pb   JobReport written atomically by stepd when the job is over
//   reported    marker: the end was acknowledged by (or must not be sent to) the
//               controller; the directory may be removed
// Writes of status/launch files are atomic (temp file + fsync + rename).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace google::protobuf {
class MessageLite;
}

namespace sluice {

class JobDir {
 public:
  explicit JobDir(std::string path) : path_(std::move(path)) {}
  static std::string NameFor(int64_t job_id) { return "job." + std::to_string(job_id); }

  const std::string& path() const { return path_; }
  std::string Launch() const { return path_ + "/launch.pb"; }
  std::string PidFile() const { return path_ + "/stepd.pid"; }
  std::string Socket() const { return path_ + "/stepd.sock"; }
  std::string Log() const { return path_ + "/stepd.log"; }
  std::string Script() const { return path_ + "/script"; }
  std::string StatusFile() const { return path_ + "/status.pb"; }
  std::string ReportedMarker() const { return path_ + "/reported"; }
  std::string LockFile() const { return path_ + "/stepd.lock"; }
  std::string CgroupFile() const { return path_ + "/cgroup"; }
  // A step's tasks, "<rank> <pid>" per line (stepd writes it once they started; the
  // agent's StepUsage reads it).
  std::string TasksFile() const { return path_ + "/tasks"; }

 private:
  std::string path_;
};

// Serializes `msg` to `path` atomically with the given mode.
// With sync=false the data is not fsync'ed (still atomic against readers).
Status WriteProtoFile(const std::string& path, const google::protobuf::MessageLite& msg,
                      mode_t mode = 0600, bool sync = true);
Status ReadProtoFile(const std::string& path, google::protobuf::MessageLite* msg);
Status WriteFileAtomic(const std::string& path, const std::string& data, mode_t mode,
                       bool sync = true);
Expected<std::string> ReadSmallFile(const std::string& path);
bool PathExists(const std::string& path);

// Pid files: decimal pid and newline.
Status WritePidFile(const std::string& path, pid_t pid);  // not fsync'ed
Expected<pid_t> ReadPidFile(const std::string& path);

// The stepd holds an exclusive flock on <jobdir>/stepd.lock for its whole life, so
// liveness needs no pid (no pid reuse, no /proc races). HoldLock is called by the
// stepd (returns the fd to keep open); LockHeld by the agent: true/false when the lock
// file exists, nullopt when it does not (stepd not started yet).
Expected<int> HoldStepdLock(const JobDir& dir);
std::optional<bool> StepdLockHeld(const JobDir& dir);

// Removes a directory tree (files and subdirectories); missing is fine.
Status RemoveTree(const std::string& path);

}  // namespace sluice
