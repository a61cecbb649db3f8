#include "node_common/node_lease.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace sluice {
namespace {

class NodeLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-lease-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = NodeLeasePath(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, path_;
};

TEST(FenceMargin, ATenthOfTheTimeoutWithinBounds) {
  EXPECT_EQ(FenceMarginMs(4'000), 500);  // floor
  EXPECT_EQ(FenceMarginMs(60'000), 6'000);
  EXPECT_EQ(FenceMarginMs(300'000), 30'000);
  EXPECT_EQ(FenceMarginMs(3'600'000), 30'000);  // ceiling
  EXPECT_EQ(LeaseUntilMs(1'000'000, 300'000), 1'270'000);
  // The lease always ends before the controller may declare the node DOWN.
  for (int64_t t : {1'000, 4'000, 10'000, 300'000, 100'000'000}) EXPECT_LT(LeaseUntilMs(0, t), t);
}

TEST_F(NodeLeaseTest, RenewalOnlyMovesForward) {
  EXPECT_EQ(ReadNodeLease(path_), std::nullopt);
  ASSERT_TRUE(RenewNodeLease(path_, 5'000).ok());
  EXPECT_EQ(ReadNodeLease(path_), 5'000);
  ASSERT_TRUE(RenewNodeLease(path_, 4'000).ok());  // an older answer arriving late
  EXPECT_EQ(ReadNodeLease(path_), 5'000);
  ASSERT_TRUE(RenewNodeLease(path_, 9'000).ok());
  EXPECT_EQ(ReadNodeLease(path_), 9'000);
}

TEST_F(NodeLeaseTest, GarbageIsNoLease) {
  for (const char* text : {"", "abc", "12x", "\n"}) {
    std::ofstream(path_) << text;
    EXPECT_EQ(ReadNodeLease(path_), std::nullopt) << text;
    LeaseWatch w(path_);
    EXPECT_FALSE(w.Expired(1'000'000)) << text;
  }
}

TEST_F(NodeLeaseTest, WatchFencesOnlyOnceTheLeaseHasEnded) {
  LeaseWatch none("");
  EXPECT_FALSE(none.Expired(INT64_MAX));
  LeaseWatch missing(path_);
  EXPECT_FALSE(missing.Expired(1'000));  // no lease written yet: nothing to fence
  ASSERT_TRUE(RenewNodeLease(path_, 2'000).ok());
  LeaseWatch w(path_);
  EXPECT_FALSE(w.Expired(1'000));
  EXPECT_EQ(w.until_ms(), 2'000);
  ASSERT_TRUE(RenewNodeLease(path_, 3'000).ok());  // renewed in time
  EXPECT_FALSE(w.Expired(2'500));                  // re-read at the old end
  EXPECT_EQ(w.until_ms(), 3'000);
  EXPECT_TRUE(w.Expired(3'000));
  EXPECT_TRUE(missing.Expired(3'000));
}

}  // namespace
}  // namespace sluice
