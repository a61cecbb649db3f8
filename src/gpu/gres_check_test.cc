#include "gpu/gres_check.h"

#include <gtest/gtest.h>

namespace sluice::gpu {
namespace {

std::vector<FoundGpu> TwoH100s() {
  std::vector<FoundGpu> out(2);
  for (int i = 0; i < 2; ++i) {
    out[i].index = i;
    out[i].minor = i;
    out[i].name = "NVIDIA H100 80GB HBM3";
    out[i].type = "h100";
    out[i].cpus = "0-15";
    out[i].nvlinks = {i == 0 ? -1 : 18, i == 1 ? -1 : 18};
    out[i].paths = {i == 0 ? "X" : "NV18", i == 1 ? "X" : "NV18"};
  }
  return out;
}

std::vector<GpuDef> Configured(int n, const std::string& type = "") {
  std::vector<GpuDef> out(n);
  for (int i = 0; i < n; ++i) out[i] = GpuDef{i, type};
  return out;
}

TEST(GresCheck, AgreeingConfigTakesTheFoundTopology) {
  GresCheck c = CheckAgainstConfig(TwoH100s(), Configured(2));
  EXPECT_EQ(c.mismatch, "");
  ASSERT_EQ(c.gpus.size(), 2u);
  EXPECT_EQ(c.gpus[1].type, "h100");
  EXPECT_EQ(c.gpus[1].file, "/dev/nvidia1");
  EXPECT_EQ(c.gpus[1].links, "18,-1");
  EXPECT_EQ(c.gpus[1].cores, "0-15");
}

TEST(GresCheck, AConfiguredTypeThatFitsTheNameIsKept) {
  GresCheck c = CheckAgainstConfig(TwoH100s(), Configured(2, "H100-80GB"));
  EXPECT_EQ(c.mismatch, "");
  EXPECT_EQ(c.gpus[0].type, "H100-80GB");
}

TEST(GresCheck, DisagreementsAreNamed) {
  EXPECT_EQ(CheckAgainstConfig(TwoH100s(), Configured(4)).mismatch,
            "gres/gpu AutoDetect=nvml: NVML found 2 GPUs but the configuration has 4");
  EXPECT_EQ(CheckAgainstConfig(TwoH100s(), Configured(2, "a100")).mismatch,
            "gres/gpu AutoDetect=nvml: GPU 0 is an NVIDIA H100 80GB HBM3 (h100), configured as "
            "a100; GPU 1 is an NVIDIA H100 80GB HBM3 (h100), configured as a100");
  std::vector<GpuDef> files = Configured(2);
  files[1].file = "/dev/nvidia7";
  EXPECT_EQ(CheckAgainstConfig(TwoH100s(), files).mismatch,
            "gres/gpu AutoDetect=nvml: GPU 1 is /dev/nvidia1, configured as /dev/nvidia7");
}

TEST(GresCheck, FormatFoundPrintsLinesAndTheMatrix) {
  std::vector<FoundGpu> found = TwoH100s();
  std::string text = FormatFound(found, CheckAgainstConfig(found, Configured(2)).gpus);
  EXPECT_NE(text.find("Name=gpu Type=h100 Count=1 Index=0 File=/dev/nvidia0 Cores=0-15 "
                      "Links=-1,18"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU1  NV18  X     0-15"), std::string::npos) << text;
}

}  // namespace
}  // namespace sluice::gpu
