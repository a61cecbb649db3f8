#include "rpc/grpc_limits.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ChannelTarget, Ipv4LiteralsSkipTheResolver) {
  EXPECT_EQ(ChannelTarget("127.0.0.1", 6817), "ipv4:127.0.0.1:6817");
  EXPECT_EQ(ChannelTarget("10.1.2.3", 1), "ipv4:10.1.2.3:1");
}

TEST(ChannelTarget, NamesAndOtherAddressesAreResolvedAsBefore) {
  EXPECT_EQ(ChannelTarget("node01", 6818), "node01:6818");
  EXPECT_EQ(ChannelTarget("localhost", 6817), "localhost:6817");
  EXPECT_EQ(ChannelTarget("127.0.0.1.example", 6817), "127.0.0.1.example:6817");
}

}  // namespace
}  // namespace sluice
