// ClusterTest: a gtest fixture that starts a real controller and node agents on loopback
// (free ports, temp state dir), runs the real commands against it, and tears it all down.
#pragma once

#include <gtest/gtest.h>

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "local/local_cluster.h"
#include "local/process.h"

namespace sluice::testing {

class ClusterTest : public ::testing::Test {
 protected:
  // Override to change the cluster shape before SetUp starts it.
  virtual LocalClusterOptions Options();
  void SetUp() override;
  void TearDown() override;

  // Runs a command (sbatch, squeue, ...) from build/bin against the cluster, in work_dir().
  RunResult Run(std::vector<std::string> argv, RunOptions opts = {});
  // `sbatch --parsable <args>`; fails the test on error; returns the job id.
  int64_t Submit(std::vector<std::string> args);
  // Job state as `squeue -h -t all -j ID -o %T` prints it ("" when unknown).
  std::string State(int64_t job_id);
  // Polls until the job is in one of `states`; returns the last state seen.
  std::string WaitState(int64_t job_id, const std::vector<std::string>& states,
                        int timeout_ms = 30'000);
  std::string WaitDone(int64_t job_id, int timeout_ms = 30'000);
  std::string ReadFile(const std::string& path);
  // The lines of ReadFile(path).
  std::vector<std::string> ReadLines(const std::string& path);
  // Writes `text` to work_dir()/name.
  void WriteFile(const std::string& name, const std::string& text);
  // The lines of `s` that start with `prefix`, sorted.
  static std::vector<std::string> SortedLines(const std::string& s, const std::string& prefix);
  // Where the commands are (for a job script's PATH).
  std::string BinDir() const;
  // Id of the newest job squeue knows (all states); 0 when none.
  int64_t LastJobId();
  std::string work_dir() const { return work_dir_; }
  // For Options(): run the test-only daemons (sluiced-faults, sluicectld-faults) with
  // their fault files in fault_dir() (SLUICE_FAULT_DIR, unset again at TearDown).
  void UseFaultBuilds(LocalClusterOptions* o);
  std::string fault_dir() const { return work_dir_ + "/faults"; }

  std::unique_ptr<LocalCluster> cluster_;
  std::string root_dir_;
  std::string work_dir_;
};

// Writes `body` as an executable /bin/sh script at `path` (health checks, prologs).
void WriteShellScript(const std::string& path, const std::string& body);

// A local Linux account for two-user tests, created with useradd when missing (needs root).
struct TestUser {
  uid_t uid;
  gid_t gid;
};
std::optional<TestUser> EnsureTestUser(const std::string& name);

}  // namespace sluice::testing
