// cgroup.conf ConstrainDevices=yes on a real cluster: the nodes' GPUs are fake device
// files (character devices with NVIDIA's major 195, no driver behind them, so an allowed
// open fails with "No such device or address"); a job given GPU 2 can reach
// nvidia2 and gets "Operation not permitted" on the GPUs it was not given. As in Slurm,
// CUDA_VISIBLE_DEVICES then numbers the job's own GPUs from 0 (CUDA enumerates only
// the devices it can open) while SLURM_JOB_GPUS keeps the node's index.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class ConstrainDevices : public ClusterTest {
 protected:
  LocalClusterOptions Options() override {
    LocalClusterOptions o = ClusterTest::Options();
    o.nodes = 1;
    o.gpus_per_node = 4;
    for (int i = 0; i < 4; ++i) {
      std::string f = root_dir_ + "/nvidia" + std::to_string(i);
      if (::mknod(f.c_str(), S_IFCHR | 0666, makedev(195, i)) != 0) {
        mknod_error_ = std::strerror(errno);
      }
    }
    o.extra_files["gres.conf"] = "Name=gpu File=" + root_dir_ + "/nvidia[0-3]\n";
    o.extra_files["cgroup.conf"] = "CgroupPlugin=autodetect\nConstrainDevices=yes\n";
    return o;
  }
  std::string mknod_error_;
};

TEST_F(ConstrainDevices, AJobOpensOnlyItsOwnGpus) {
  ASSERT_EQ(mknod_error_, "") << "mknod needs root";
  int64_t holder = Submit({"--gres=gpu:2", "-o", "/dev/null", "--wrap", "sleep 300"});
  ASSERT_EQ(WaitState(holder, {"RUNNING"}), "RUNNING");
  std::string probe;
  for (int i = 0; i < 4; ++i) {
    std::string f = root_dir_ + "/nvidia" + std::to_string(i);
    probe += "if (: <> " + f + ") 2>/dev/null; then echo gpu" + std::to_string(i) +
             " opened; elif (: <> " + f + ") 2>&1 | grep -q 'not permitted'; then echo gpu" +
             std::to_string(i) + " EPERM; else echo gpu" + std::to_string(i) + " reachable; fi\n";
  }
  WriteFile("probe.sh",
            "#!/bin/sh\necho CUDA=$CUDA_VISIBLE_DEVICES JOB_GPUS=$SLURM_JOB_GPUS\n" + probe);
  int64_t id = Submit({"--gres=gpu:1", "-o", "probe.out", "probe.sh"});
  ASSERT_EQ(WaitDone(id), "COMPLETED");
  EXPECT_EQ(ReadFile(work_dir() + "/probe.out"),
            "CUDA=0 JOB_GPUS=2\ngpu0 EPERM\ngpu1 EPERM\ngpu2 reachable\ngpu3 EPERM\n");
  Run({"scancel", std::to_string(holder)});
}

}  // namespace
}  // namespace sluice::testing
