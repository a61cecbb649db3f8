// GPUs found through NVML (gres.conf AutoDetect=nvml), with the tests' fake NVML
// (tests/fake_nvml) loaded by the real agents through SLUICE_NVML_LIBRARY: every node
// serves the 8-GPU NVSwitch box of nvswitch8.txt (a copy the test may break). The found
// type and topology reach the controller and scontrol; `sluiced --print-gres` prints them
// and refuses a configuration that disagrees; a GPU that fails its health check drains
// its node with a reason naming it, the job on it is requeued, and the drain lifts when
// the GPU is healthy again. A job's GPUs are sampled while it runs: sacct shows what it
// used of what it held.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cluster_fixture.h"
#include "common/clock.h"

namespace fs = std::filesystem;

namespace sluice::testing {
namespace {

class GpuAutodetect : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 2;
    topology_ = root_dir_ + "/gpus.txt";
    fs::copy_file(std::string(SLUICE_FAKE_NVML_TOPOLOGIES) + "/nvswitch8.txt", topology_);
    setenv("SLUICE_NVML_LIBRARY", SLUICE_FAKE_NVML, 1);
    setenv("SLUICE_FAKE_NVML_FILE", topology_.c_str(), 1);
    o.extra_files["gres.conf"] = "AutoDetect=nvml\n";
    o.extra_config_lines = {"GpuHealthCheckInterval=1", "JobAcctGatherFrequency=task=1"};
    return o;
  }
  void TearDown() override {
    ClusterTest::TearDown();
    unsetenv("SLUICE_NVML_LIBRARY");
    unsetenv("SLUICE_FAKE_NVML_FILE");
  }
  std::string NodeStateReason(const std::string& node) {
    std::string s = Run({"sinfo", "-h", "-N", "-n", node, "-o", "%t|%E"}).out;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  // Polls until the node's "state|reason" is `want` (or its reason is, with want "|R").
  std::string WaitNode(const std::string& node, const std::string& want) {
    int64_t deadline = RealClock::MonotonicMs() + 20'000;
    auto matches = [&](const std::string& s) {
      return want[0] == '|' ? s.size() >= want.size() && s.ends_with(want) : s == want;
    };
    std::string s;
    while (!matches(s = NodeStateReason(node)) && RealClock::MonotonicMs() < deadline) {
      usleep(100'000);
    }
    return s;
  }
  std::string topology_;
};

TEST_F(GpuAutodetect, FoundGpusAreShownAndPlaced) {
  auto show = Run({"scontrol", "show", "node", "node01"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("Gres=gpu:h100:8(S:0-1)"), std::string::npos) << show.out;
  int64_t id = Submit({"--gres=gpu:h100:2", "-o", "gpus.out", "--wrap",
                       "echo CUDA=$CUDA_VISIBLE_DEVICES JOB_GPUS=$SLURM_JOB_GPUS"});
  ASSERT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile(work_dir() + "/gpus.out"), "CUDA=0,1 JOB_GPUS=0,1\n");
}

// The node's 16 CPUs are all on NUMA node 0 of the NVSwitch box (CPUs 0-55 are closest
// to GPUs 0-3): --gpu-bind=closest gives every task GPUs 0-3 of the job's 8.
TEST_F(GpuAutodetect, GpuBindClosestUsesTheFoundTopology) {
  int64_t id = Submit({"--gres=gpu:8", "-n2", "-o", "closest.out", "--wrap",
                       BinDir() + "/srun --gpu-bind=closest printenv CUDA_VISIBLE_DEVICES"});
  ASSERT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile(work_dir() + "/closest.out"), "0,1,2,3\n0,1,2,3\n");
}

TEST_F(GpuAutodetect, PrintGresShowsWhatWasFoundAndRefusesADisagreement) {
  auto r = Run({"sluiced", "-f", cluster_->conf_path(), "-N", "node01", "--print-gres"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("AutoDetect=nvml (" SLUICE_FAKE_NVML "): 8 GPUs"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Name=gpu Type=h100 Count=1 Index=3 File=/dev/nvidia3 Cores=0-55 "
                       "Links=18,18,18,-1,18,18,18,18 UUID=GPU-00000003-"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("GPU7  NV18  NV18  NV18  NV18  NV18  NV18  NV18  X     56-111        1"),
            std::string::npos)
      << r.out;

  std::string gres = root_dir_ + "/a100-gres.conf";
  std::ofstream(gres) << "AutoDetect=nvml\nName=gpu Type=a100 Count=8\n";
  std::string conf = root_dir_ + "/a100.conf";
  std::ofstream(conf) << ReadFile(cluster_->conf_path()) << "GresConf=" << gres << "\n";
  r = Run({"sluiced", "-f", conf, "-N", "node01", "--print-gres"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("gres/gpu AutoDetect=nvml: GPU 0 is an NVIDIA H100 80GB HBM3 (h100), "
                       "configured as a100"),
            std::string::npos)
      << r.out;
}

TEST_F(GpuAutodetect, AFailedGpuDrainsTheNodeRequeuesItsJobAndRecoveryLiftsTheDrain) {
  int64_t id = Submit({"--requeue", "--gres=gpu:8", "-o", "/dev/null", "--wrap", "sleep 300"});
  ASSERT_EQ(WaitState(id, {"RUNNING"}), "RUNNING");
  std::ofstream(topology_, std::ios::app) << "ecc 3 2\n";
  const std::string reason = "GPU 3 failed: uncorrectable ECC errors (2)";
  EXPECT_EQ(WaitNode("node01", "drain|" + reason), "drain|" + reason);
  EXPECT_EQ(WaitNode("node02", "drain|" + reason), "drain|" + reason);
  EXPECT_EQ(WaitState(id, {"PENDING"}), "PENDING");  // requeued, and no node takes it now
  // Restarts=1, or 2 when the requeued job started on the other node in the moment
  // before that node's own report of the same GPU drained it.
  auto show = Run({"scontrol", "show", "job", std::to_string(id)});
  EXPECT_TRUE(show.out.find("Restarts=1") != std::string::npos ||
              show.out.find("Restarts=2") != std::string::npos)
      << show.out;

  fs::copy_file(std::string(SLUICE_FAKE_NVML_TOPOLOGIES) + "/nvswitch8.txt", topology_,
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(WaitState(id, {"RUNNING"}, 60'000), "RUNNING");  // on an undrained node
  for (const char* node : {"node01", "node02"}) {
    std::string now = WaitNode(node, "|none");
    EXPECT_TRUE(now.ends_with("|none")) << node << " " << now;
  }
  Run({"scancel", std::to_string(id)});
}

TEST_F(GpuAutodetect, AJobHoldingEightGpusAndUsingOneShowsItInSacct) {
  std::ofstream(topology_, std::ios::app) << "gpu 0 util=100 mem_used_mb=2048\n";
  int64_t id = Submit({"--gres=gpu:8", "-o", "/dev/null", "--wrap", BinDir() + "/srun sleep 3"});
  ASSERT_EQ(WaitDone(id), "COMPLETED");
  // The batch step (the batch host's GPUs over the job's life) and the srun step (its
  // GPUs on its nodes over its own life).
  const std::string usage =
      "|gres/gpumem=2048M,gres/gpuutil=100|gres/gpumem=2048M,gres/gpuutil=100";
  const std::string batch = std::to_string(id) + ".batch" + usage;
  const std::string step = std::to_string(id) + ".0" + usage;
  std::string out;
  for (int i = 0; i < 50; ++i) {
    out = Run({"sacct", "-P", "-n", "-j", std::to_string(id), "-o",
               "JobID,TRESUsageInAve,TRESUsageInMax"})
              .out;
    if (out.find(batch) != std::string::npos && out.find(step) != std::string::npos) break;
    usleep(100'000);
  }
  EXPECT_NE(out.find(batch), std::string::npos) << out;
  EXPECT_NE(out.find(step), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(id) + "||\n"), std::string::npos) << out;  // the job line
}

}  // namespace
}  // namespace sluice::testing
