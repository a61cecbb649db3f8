// Device confinement against the real kernel: fake GPU device files (character devices
// with NVIDIA's major number 195, as ../shared/slurm-anchor makes them; no driver behind
// them, so an allowed open fails with ENXIO) and a job cgroup that denies GPU 3: a child
// forked into it gets EPERM on nvidia3 only. Once through the cgroup v1 devices
// controller, once through a cgroup v2 device program (the unified hierarchy, also
// mounted on hybrid hosts).
#include "stepd/device_fence.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "stepd/process_tracker.h"

namespace sluice {
namespace {

class DeviceFence : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-devices-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (int i = 0; i < 4; ++i) {
      std::string f = dir_ + "/nvidia" + std::to_string(i);
      if (::mknod(f.c_str(), S_IFCHR | 0666, makedev(195, i)) != 0) {
        GTEST_SKIP() << "cannot mknod " << f << ": " << std::strerror(errno) << " (needs root)";
      }
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // In a child forked by `t`: bit i of the exit code = opening nvidia<i> gave EPERM.
  int DeniedMask(ProcessTracker* t) {
    pid_t pid = t->ForkChild();
    if (pid == 0) {
      int mask = 0;
      for (int i = 0; i < 4; ++i) {
        int fd = ::open((dir_ + "/nvidia" + std::to_string(i)).c_str(), O_RDWR);
        if (fd < 0 && errno == EPERM) mask |= 1 << i;
        if (fd >= 0) ::close(fd);
      }
      ::_exit(mask);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string Gpu(int i) const { return dir_ + "/nvidia" + std::to_string(i); }
  std::string dir_;
};

TEST_F(DeviceFence, DeviceIdsOfReadsMajorMinorAndRefusesOtherFiles) {
  auto ids = DeviceIdsOf({Gpu(2), Gpu(3)});
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(*ids, (std::vector<DeviceId>{{false, 195, 2}, {false, 195, 3}}));
  EXPECT_FALSE(DeviceIdsOf({dir_}).ok());
  EXPECT_FALSE(DeviceIdsOf({dir_ + "/nvidia9"}).ok());
}

TEST_F(DeviceFence, CgroupV1DevicesControllerDeniesTheOtherGpus) {
  CgroupRoots roots{"", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/devices"};
  if (::access("/sys/fs/cgroup/devices/devices.deny", W_OK) != 0 ||
      ::access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) != 0) {
    GTEST_SKIP() << "no writable cgroup v1 memory and devices controllers on this host";
  }
  auto job = ProcessTracker::Create(990001, roots);
  ASSERT_EQ(job->mode(), ProcessTracker::Mode::kCgroupV1);
  EXPECT_EQ(DeniedMask(job.get()), 0);  // nothing denied yet
  ASSERT_TRUE(job->DenyDevices(roots, {Gpu(3)}).ok());
  EXPECT_EQ(DeniedMask(job.get()), 1 << 3);
  // A step of the job holding GPU 2 only: GPU 1 denied on top of the job's.
  auto step = ProcessTracker::CreateStep(job->cgroup_dir(), "step_0");
  ASSERT_TRUE(step->DenyDevices(roots, {Gpu(1)}).ok());
  EXPECT_EQ(DeniedMask(step.get()), (1 << 1) | (1 << 3));
  step->Remove();
  job->Remove();
  EXPECT_FALSE(std::filesystem::exists("/sys/fs/cgroup/devices/sluice/job_990001"));
}

TEST_F(DeviceFence, CgroupV2DeviceProgramDeniesTheOtherGpus) {
  std::string v2 = ::access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                       ? "/sys/fs/cgroup"
                       : "/sys/fs/cgroup/unified";
  if (::access((v2 + "/cgroup.procs").c_str(), W_OK) != 0) {
    GTEST_SKIP() << "no writable cgroup v2 hierarchy on this host";
  }
  CgroupRoots roots{v2, "", ""};
  auto job = ProcessTracker::Create(990002, roots, /*batch_leaf=*/false);
  ASSERT_EQ(job->mode(), ProcessTracker::Mode::kCgroupV2);
  Status st = job->DenyDevices(roots, {Gpu(0), Gpu(3)});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(DeniedMask(job.get()), (1 << 0) | (1 << 3));
  auto step = ProcessTracker::CreateStep(job->cgroup_dir(), "step_0");
  ASSERT_TRUE(step->DenyDevices(roots, {Gpu(1)}).ok());
  EXPECT_EQ(DeniedMask(step.get()), (1 << 0) | (1 << 1) | (1 << 3));  // the job's program too
  step->Remove();
  job->Remove();
}

TEST(DeviceFenceNoCgroup, WithoutACgroupTheJobIsRefused) {
  auto t = ProcessTracker::Create(990003, CgroupRoots{"/nonexistent/v2", "/nonexistent/v1", ""});
  ASSERT_EQ(t->mode(), ProcessTracker::Mode::kProcessGroup);
  Status st = t->DenyDevices(CgroupRoots{}, {"/dev/null"});
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
}

}  // namespace
}  // namespace sluice
