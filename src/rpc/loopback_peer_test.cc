#include "rpc/loopback_peer.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sluice {
namespace {

constexpr char kTable[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode\n"
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
    "100 1 0000000000000000 100 0 0 10 0\n"
    "   1: 0100007F:C822 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "101 1 0000000000000000 20 4 30 10 -1\n"
    "   2: 0100007F:C823 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 "
    "102 1 0000000000000000 20 4 30 10 -1\n";

TEST(LoopbackPeer, FindsTheClientSocketsOwner) {
  EXPECT_EQ(SocketOwnerIn(kTable, "127.0.0.1", 0xC822, "127.0.0.1", 8080), 1000u);
  EXPECT_EQ(SocketOwnerIn(kTable, "127.0.0.1", 0xC823, "127.0.0.1", 8080), 0u);
  EXPECT_EQ(SocketOwnerIn(kTable, "127.0.0.1", 0xC824, "127.0.0.1", 8080), std::nullopt);
  EXPECT_EQ(SocketOwnerIn(kTable, "10.0.0.1", 0xC822, "127.0.0.1", 8080), std::nullopt);
  EXPECT_EQ(SocketOwnerIn(kTable, "not-an-address", 1, "127.0.0.1", 8080), std::nullopt);
}

// A real connection over loopback: the client's socket belongs to this process's uid.
TEST(LoopbackPeer, RealConnectionIsOurs) {
  int srv = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(srv, 1), 0);
  socklen_t len = sizeof a;
  getsockname(srv, reinterpret_cast<sockaddr*>(&a), &len);
  int cli = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(cli, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  int conn = accept(srv, nullptr, nullptr);
  sockaddr_in peer{};
  len = sizeof peer;
  getpeername(conn, reinterpret_cast<sockaddr*>(&peer), &len);
  EXPECT_EQ(LoopbackPeerUid("127.0.0.1", ntohs(peer.sin_port), "127.0.0.1", ntohs(a.sin_port)),
            getuid());
  close(conn);
  close(cli);
  close(srv);
}

}  // namespace
}  // namespace sluice
