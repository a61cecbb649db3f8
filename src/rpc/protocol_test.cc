#include "rpc/protocol.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(Protocol, PeersWithoutAVersionAreVersionOne) {
  EXPECT_EQ(PeerProtocol(0), 1);
  EXPECT_EQ(PeerProtocol(3), 3);
  EXPECT_EQ(PeerProtocol(""), 1);
  EXPECT_EQ(PeerProtocol("2"), 2);
  EXPECT_EQ(PeerProtocol("2x"), 1);
}

TEST(Protocol, OneVersionEitherSideIsServedAndNoMore) {
  ASSERT_EQ(SpokenProtocol(), kProtocolVersion);
  for (int d : {-1, 0, 1})
    EXPECT_TRUE(CheckPeerProtocol(kProtocolVersion + d, "node node01", "controller").ok()) << d;
  Status st = CheckPeerProtocol(kProtocolVersion + 2, "node node01", "controller");
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            fmt::format("node node01 speaks protocol {}; this controller speaks {} and serves {} "
                        "to {}: upgrade one version at a time",
                        kProtocolVersion + 2, kProtocolVersion, kProtocolVersion - 1,
                        kProtocolVersion + 1));
  EXPECT_FALSE(CheckPeerProtocol(kProtocolVersion - 2, "sbatch", "controller").ok());
}

TEST(Protocol, AnUpgradeDrillBuildSpeaksANeighboursVersion) {
  SpeakProtocol(kProtocolVersion - 1);
  EXPECT_TRUE(CheckPeerProtocol(kProtocolVersion - 2, "x", "y").ok());
  EXPECT_FALSE(CheckPeerProtocol(kProtocolVersion + 1, "x", "y").ok());
  SpeakProtocol(kProtocolVersion);
}

}  // namespace
}  // namespace sluice
