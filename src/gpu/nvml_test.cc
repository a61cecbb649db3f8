// Nvml against the tests' fake NVML (tests/fake_nvml), loaded through the same dlopen.
#include "gpu/nvml.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace sluice::gpu {
namespace {

std::string Topology(const std::string& name) {
  return std::string(SLUICE_FAKE_NVML_TOPOLOGIES) + "/" + name;
}

class NvmlTest : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("SLUICE_FAKE_NVML_FILE"); }
  std::unique_ptr<Nvml> Load(const std::string& file) {
    ::setenv("SLUICE_FAKE_NVML_FILE", file.c_str(), 1);
    auto nvml = Nvml::Open(SLUICE_FAKE_NVML);
    EXPECT_TRUE(nvml.ok()) << nvml.status().message();
    return nvml.ok() ? std::move(*nvml) : nullptr;
  }
  // A copy of a topology the test may change.
  std::string Copy(const std::string& name) {
    std::string path = ::testing::TempDir() + "/" + name;
    std::filesystem::copy_file(Topology(name), path,
                               std::filesystem::copy_options::overwrite_existing);
    return path;
  }
};

TEST(GpuTypeFromName, TakesTheModelWord) {
  EXPECT_EQ(GpuTypeFromName("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(GpuTypeFromName("Tesla V100-SXM2-32GB"), "v100");
  EXPECT_EQ(GpuTypeFromName("NVIDIA L40S"), "l40s");
  EXPECT_EQ(GpuTypeFromName("NVIDIA GeForce RTX 4090"), "rtx_4090");
  EXPECT_EQ(GpuTypeFromName("NVIDIA H200"), "h200");
  EXPECT_EQ(GpuTypeFromName(""), "gpu");
}

TEST_F(NvmlTest, AMissingLibraryIsAClearError) {
  auto nvml = Nvml::Open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(nvml.ok());
  EXPECT_NE(nvml.status().message().find("cannot load NVML (/nonexistent/libnvidia-ml.so.1)"),
            std::string::npos)
      << nvml.status().message();
}

TEST_F(NvmlTest, ADriverThatFailsToInitialiseIsAClearError) {
  std::string path = ::testing::TempDir() + "/broken.txt";
  std::ofstream(path) << "init_fails\n";
  ::setenv("SLUICE_FAKE_NVML_FILE", path.c_str(), 1);
  auto nvml = Nvml::Open(SLUICE_FAKE_NVML);
  ASSERT_FALSE(nvml.ok());
  EXPECT_NE(nvml.status().message().find("failed to initialise: Driver Not Loaded"),
            std::string::npos)
      << nvml.status().message();
}

TEST_F(NvmlTest, AnNvSwitchBoxIsAllToAllOver18Links) {
  auto nvml = Load(Topology("nvswitch8.txt"));
  ASSERT_TRUE(nvml);
  auto gpus = nvml->Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 8u);
  const FoundGpu& g5 = (*gpus)[5];
  EXPECT_EQ(g5.index, 5);
  EXPECT_EQ(g5.minor, 5u);
  EXPECT_EQ(g5.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g5.type, "h100");
  EXPECT_EQ(g5.uuid, "GPU-00000005-fake-4a1b-9c2d-000000000005");
  EXPECT_EQ(g5.pci_bus_id, "00000000:AB:00.0");
  EXPECT_EQ(g5.memory_mb, 81559);
  EXPECT_EQ(g5.cpus, "56-111");
  EXPECT_EQ(g5.numa_node, 1);
  EXPECT_EQ(g5.File(), "/dev/nvidia5");
  EXPECT_EQ(g5.Links(), "18,18,18,18,18,-1,18,18");
  EXPECT_EQ(g5.paths[0], "NV18");
  EXPECT_EQ(g5.paths[5], "X");
}

TEST_F(NvmlTest, NvLinkIslandsAreLinkedOnlyInside) {
  auto nvml = Load(Topology("nvlink2x4.txt"));
  ASSERT_TRUE(nvml);
  auto gpus = nvml->Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 8u);
  EXPECT_EQ((*gpus)[1].Links(), "4,-1,4,4,0,0,0,0");
  EXPECT_EQ((*gpus)[6].Links(), "0,0,0,0,4,4,-1,4");
  EXPECT_EQ((*gpus)[1].paths[5], "SYS");  // other NUMA node, no NVLink
  EXPECT_EQ((*gpus)[0].type, "a100");
  EXPECT_EQ((*gpus)[6].cpus, "16-31");
}

TEST_F(NvmlTest, PcieOnlyGpusHaveNoLinksButTheirLevels) {
  auto nvml = Load(Topology("pcie4.txt"));
  ASSERT_TRUE(nvml);
  auto gpus = nvml->Discover();
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 4u);
  EXPECT_EQ((*gpus)[0].Links(), "");
  EXPECT_EQ((*gpus)[0].paths, (std::vector<std::string>{"X", "PIX", "SYS", "SYS"}));
  EXPECT_EQ((*gpus)[3].paths, (std::vector<std::string>{"SYS", "SYS", "PIX", "X"}));
  EXPECT_EQ((*gpus)[2].cpus, "8-15");
  EXPECT_EQ((*gpus)[2].type, "l40s");
}

TEST_F(NvmlTest, HealthNamesTheFaultOfEachGpu) {
  auto nvml = Load(Topology("ecc8.txt"));
  ASSERT_TRUE(nvml);
  std::vector<std::string> health = nvml->CheckHealth();
  ASSERT_EQ(health.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(health[i], i == 3 ? "uncorrectable ECC errors (2)" : "") << "GPU " << i;
  }
}

TEST_F(NvmlTest, FaultsAppearingLaterAreSeenAndXidsStay) {
  std::string path = Copy("nvswitch8.txt");
  auto nvml = Load(path);
  ASSERT_TRUE(nvml);
  for (const std::string& h : nvml->CheckHealth()) EXPECT_EQ(h, "");
  std::ofstream(path, std::ios::app) << "xid 1 79\nxid 2 13\nretired_pending 4\nremap_failed 6\n"
                                        "lost 7\n";
  std::vector<std::string> health = nvml->CheckHealth();
  ASSERT_EQ(health.size(), 8u);
  EXPECT_EQ(health[1], "XID 79 error");
  EXPECT_EQ(health[2], "");  // XID 13: the application's fault, not the GPU's
  EXPECT_EQ(health[4], "retired pages pending a reset");
  EXPECT_EQ(health[6], "row remapping failed");
  EXPECT_EQ(health[7], "fallen off the bus");
  EXPECT_EQ(nvml->CheckHealth()[1], "XID 79 error");  // an XID is remembered
}

TEST_F(NvmlTest, SampleReadsUtilizationAndMemory) {
  std::string path = Copy("nvswitch8.txt");
  std::ofstream(path, std::ios::app)
      << "gpu 2 name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-2 minor=2 memory_mb=81559 "
         "pci=00000000:3A:00.0 cpus=0-55 numa=0 util=75 mem_used_mb=1024\n";
  auto nvml = Load(path);
  ASSERT_TRUE(nvml);
  auto s = nvml->Sample(2);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->util_pct, 75);
  EXPECT_EQ(s->mem_used_mb, 1024);
  EXPECT_FALSE(nvml->Sample(9).ok());
}

}  // namespace
}  // namespace sluice::gpu
