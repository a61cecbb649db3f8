// GpuSampler against the tests' fake NVML: the first sample one second after the start,
// then every interval; utilization and memory summed over the job's GPUs; average and max.
#include "stepd/gpu_sampler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace sluice {
namespace {

class GpuSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = ::testing::TempDir() + "/sampler-gpus.txt";
    std::filesystem::copy_file(std::string(SLUICE_FAKE_NVML_TOPOLOGIES) + "/nvswitch8.txt", file_,
                               std::filesystem::copy_options::overwrite_existing);
    ::setenv("SLUICE_NVML_LIBRARY", SLUICE_FAKE_NVML, 1);
    ::setenv("SLUICE_FAKE_NVML_FILE", file_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SLUICE_NVML_LIBRARY");
    ::unsetenv("SLUICE_FAKE_NVML_FILE");
  }
  void Set(int gpu, int util, int mem_mb) {
    std::ofstream(file_, std::ios::app)
        << "gpu " << gpu << " util=" << util << " mem_used_mb=" << mem_mb << "\n";
  }
  std::string file_;
};

TEST_F(GpuSamplerTest, SumsTheJobsGpusAndKeepsAverageAndMax) {
  GpuSampler s({1, 2}, /*interval_s=*/5, /*start_mono_ms=*/0);
  Set(1, 50, 1000);
  Set(2, 30, 500);
  Set(3, 100, 9000);             // not the job's
  EXPECT_EQ(s.Tick(999), 1000);  // not due yet
  EXPECT_EQ(s.Usage().samples(), 0);
  EXPECT_EQ(s.Tick(1000), 6000);
  Set(2, 90, 1500);
  EXPECT_EQ(s.Tick(6000), 11000);
  GpuUsage u = s.Usage();
  EXPECT_EQ(u.samples(), 2);
  EXPECT_EQ(u.util_ave_pct(), (80 + 140) / 2);
  EXPECT_EQ(u.util_max_pct(), 140);
  EXPECT_EQ(u.mem_ave_mb(), (1500 + 2500) / 2);
  EXPECT_EQ(u.mem_max_mb(), 2500);
}

TEST_F(GpuSamplerTest, WithoutNvmlItStopsQuietly) {
  ::setenv("SLUICE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  GpuSampler s({0}, 1, 0);
  EXPECT_EQ(s.Tick(1000), -1);
  EXPECT_EQ(s.Tick(5000), -1);
  EXPECT_EQ(s.Usage().samples(), 0);
}

}  // namespace
}  // namespace sluice
