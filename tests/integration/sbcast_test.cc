// sbcast: a file copied to every node of a running job, from outside (-j) and from the
// job's own script; refusals in Slurm's words.
#include <sys/stat.h>

#include <filesystem>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;
using Sbcast = ClusterTest;

TEST_F(Sbcast, CopiesToTheJobsNodesForcesAndPreserves) {
  WriteFile("model.bin", "weights v1\n");
  ::chmod((work_dir() + "/model.bin").c_str(), 0751);
  const int64_t id = Submit({"-N2", "--wrap", "sleep 60"});
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  const std::string dest = work_dir() + "/copied.bin";
  // The local cluster's nodes share one file system: each node's copy lands on the same
  // path, so the first copy needs --force too (the nodes race to create it).
  RunResult r = Run({"sbcast", "-f", "-j", std::to_string(id), "model.bin", dest});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(dest), "weights v1\n");
  // Without --force an existing file stays (each node says so).
  WriteFile("model.bin", "weights v2\n");
  r = Run({"sbcast", "-j", std::to_string(id), "model.bin", dest});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("File exists"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(dest), "weights v1\n");
  r = Run({"sbcast", "--force", "--preserve", "--jobid=" + std::to_string(id), "model.bin", dest});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(dest), "weights v2\n");
  struct stat st {};
  ASSERT_EQ(::stat(dest.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  for (const auto& e : fs::directory_iterator(work_dir()))  // no temporary file left behind
    EXPECT_EQ(e.path().filename().string().find(".sbcast."), std::string::npos) << e.path();
  Run({"scancel", std::to_string(id)});
}

TEST_F(Sbcast, FromInsideTheJobAndBadInput) {
  WriteFile("data.txt", "payload\n");
  const int64_t id = Submit({"-N2", "-o", "out.%j", "--wrap",
                             BinDir() + "/sbcast -f data.txt " + work_dir() +
                                 "/in_job.txt && cat " + work_dir() + "/in_job.txt"});
  EXPECT_EQ(WaitDone(id), "COMPLETED") << ReadFile("out." + std::to_string(id));
  EXPECT_EQ(ReadFile("out." + std::to_string(id)), "payload\n");

  RunResult r = Run({"sbcast", "data.txt"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbcast: error: Need two file names, have 1 names\n");
  r = Run({"sbcast", "-j", "999999", "data.txt", "/tmp/x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbcast: error: Invalid job id specified\n");
  r = Run({"sbcast", "-j", std::to_string(id), "missing.txt", "/tmp/x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "sbcast: error: Can't open `missing.txt`: No such file or directory\n");
  r = Run({"sbcast", "data.txt", "/tmp/x"});
  EXPECT_EQ(r.err, "sbcast: error: Need a job id\n");
}

}  // namespace
}  // namespace sluice::testing
