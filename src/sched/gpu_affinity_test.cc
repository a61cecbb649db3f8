#include "sched/gpu_affinity.h"

#include <bit>

#include <gtest/gtest.h>

namespace sluice::sched {
namespace {

// 8 GPUs as two NVLink islands {0,1,2,3} and {4,5,6,7}; 2 links inside an island, none
// across.
AffinityMatrix TwoIslands() {
  AffinityMatrix w(8, std::vector<int>(8, 0));
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a != b && a / 4 == b / 4) w[a][b] = 2;
  return w;
}

TEST(GpuAffinity, NoTopologyTakesLowestFreeBits) {
  EXPECT_EQ(ChooseGpus(0b10110110, 3, {}), 0b00010110u);
  EXPECT_EQ(LowestBits(0b1011, 2), 0b0011u);
}

TEST(GpuAffinity, PicksASetInsideOneIsland) {
  // Free: 2,3 (island A) and 4,5,6 (island B). Lowest bits would be {2,3,4}, which spans
  // both islands; the best-connected 3-set is {4,5,6}.
  EXPECT_EQ(ChooseGpus(0b01111100, 3, TwoIslands()), 0b01110000u);
  // Two GPUs: both islands offer a connected pair; the tie goes to the choice that
  // leaves the rest best connected ({2,3} taken leaves {4,5,6} whole), then low bits.
  EXPECT_EQ(ChooseGpus(0b01111100, 2, TwoIslands()), 0b00001100u);
}

TEST(GpuAffinity, SingleGpuLeavesTheBestConnectedRestFree) {
  // Free: 0 alone in island A, 4,5,6 in island B: taking 0 keeps B's triangle intact.
  EXPECT_EQ(ChooseGpus(0b01110001, 1, TwoIslands()), 0b00000001u);
}

TEST(GpuAffinity, LargeNodesUseTheGreedySearch) {
  // 32 GPUs in islands of 8; everything free: a 4-set comes from one island.
  AffinityMatrix w(32, std::vector<int>(32, 0));
  for (int a = 0; a < 32; ++a)
    for (int b = 0; b < 32; ++b)
      if (a != b && a / 8 == b / 8) w[a][b] = 1;
  const uint64_t free = 0xFFFFFFF0;  // island 0 partly used (bits 0-3 busy)
  const uint64_t got = ChooseGpus(free, 8, w);
  EXPECT_EQ(std::popcount(got), 8);
  const int island = std::countr_zero(got) / 8;
  for (uint64_t m = got; m; m &= m - 1) EXPECT_EQ(std::countr_zero(m) / 8, island);
  EXPECT_EQ(got & ~free, 0u);
}

TEST(GpuAffinity, RandomChoicesAreValidSubsets) {
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (int iter = 0; iter < 2000; ++iter) {
    const int n = 1 + static_cast<int>(next() >> 60);  // up to 16 GPUs
    AffinityMatrix w(n, std::vector<int>(n, 0));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) w[a][b] = a == b ? 0 : static_cast<int>((next() >> 61));
    const uint64_t free = (next() >> 20) & ((uint64_t{1} << n) - 1);
    const int count =
        std::popcount(free) == 0 ? 0 : 1 + static_cast<int>(next() % std::popcount(free));
    const uint64_t got = ChooseGpus(free, count, w);
    ASSERT_EQ(std::popcount(got), count);
    ASSERT_EQ(got & ~free, 0u);
  }
}

}  // namespace
}  // namespace sluice::sched
