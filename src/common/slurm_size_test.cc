// The size grammar of every size option and config value (Slurm's str_to_mbytes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/slurm_format.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

struct Accepted {
  const char* text;
  int64_t mb;
};

TEST(SizeGrammar, AcceptsWhatSlurmAccepts) {
  const Accepted cases[] = {
      {"1000", 1000},   {"0", 0},         {"1000M", 1000},  {"1000m", 1000}, {"1000MB", 1000},
      {"1000mb", 1000}, {"1000Mb", 1000}, {"1000mB", 1000}, {"4G", 4096},    {"4g", 4096},
      {"1GB", 1024},    {"1gb", 1024},    {"1Gb", 1024},    {"2T", 2097152}, {"2tb", 2097152},
      {"2TB", 2097152}, {"1024K", 1},     {"1024KB", 1},    {"1k", 1},       {"1kb", 1},
      {"1025K", 2},     {"0K", 0},        {"0G", 0},        {"0GB", 0},      {" 16G", 16384},
      {"+5", 5},        {"-0", 0},        {"007", 7},       {"\t2G", 2048},
  };
  for (const Accepted& c : cases) {
    auto r = ParseMemoryMb(c.text);
    ASSERT_TRUE(r.ok()) << "'" << c.text << "': " << r.status().message();
    EXPECT_EQ(*r, c.mb) << c.text;
  }
}

TEST(SizeGrammar, RefusesTheRest) {
  for (const char* bad : {"",
                          " ",
                          "-1",
                          "-1G",
                          "1.5G",
                          "1.0",
                          "G",
                          "GB",
                          "abc",
                          "4X",
                          "4XB",
                          "100B",
                          "100b",
                          "1GiB",
                          "1Gi",
                          "1 G",
                          "16G ",
                          "1GBB",
                          "1G B",
                          "1P",
                          "1E",
                          "lots",
                          "1e3",
                          "0x10",
                          "--1",
                          "+-1",
                          "99999999999999999999",
                          "9999999999999999T"}) {
    auto r = ParseMemoryMb(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' should be refused";
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("Invalid memory size"));
    }
  }
}

TEST(FormatMemory, AsTresStrings) {
  EXPECT_EQ(FormatMemoryMb(64000), "62.50G");
  EXPECT_EQ(FormatMemoryMb(6000), "6000M");
  EXPECT_EQ(FormatMemoryMb(256000), "250G");
  EXPECT_EQ(FormatMemoryMb(1000), "1000M");
  EXPECT_EQ(FormatMemoryMb(1024), "1G");
  EXPECT_EQ(FormatMemoryMb(1536), "1.50G");
  EXPECT_EQ(FormatMemoryMb(512), "512M");
  EXPECT_EQ(FormatMemoryMb(0), "0M");
  EXPECT_EQ(FormatMemoryMb(1048576), "1T");
  EXPECT_EQ(FormatMemoryMb(1024000), "1000G");
}

}  // namespace
}  // namespace sluice
