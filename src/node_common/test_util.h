// Test helpers: a temporary spool with one job directory, and running the real
// sluice-stepd binary (built next to the test binary) on it.
#pragma once

#include <sys/types.h>

#include <string>

#include "node.pb.h"

namespace sluice::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Path of a binary built into the same directory as the running test.
std::string SiblingBinary(const std::string& name);

// A minimal valid launch for the current user running `script`, output to
// <work_dir>/out.txt.
BatchLaunch MakeLaunch(int64_t job_id, const std::string& script, const std::string& work_dir);

// Starts sluice-stepd on `job_dir` (which must hold launch.pb); returns its pid.
pid_t StartStepd(const std::string& job_dir, bool use_cgroups = true);
// Waits up to `timeout_ms` for `pid` (a child) to exit; returns its exit code or -1.
int WaitExit(pid_t pid, int timeout_ms);
// True while `pid` exists and is not a zombie.
bool ProcessAlive(pid_t pid);
// Waits until `path` exists (up to timeout_ms).
bool WaitForFile(const std::string& path, int timeout_ms);
std::string ReadFile(const std::string& path);

}  // namespace sluice::testing
