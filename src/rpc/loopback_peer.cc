#include "rpc/loopback_peer.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace sluice {
namespace {

// The kernel prints an IPv4 endpoint as the raw 32-bit address in host byte order
// (%08X) and the port (%04X): 127.0.0.1:8080 is "0100007F:1F90".
std::optional<std::string> Endpoint(const std::string& addr, int port) {
  in_addr a{};
  if (inet_pton(AF_INET, addr.c_str(), &a) != 1 || port < 0 || port > 65535) return std::nullopt;
  return fmt::format("{:08X}:{:04X}", a.s_addr, port);
}

}  // namespace

std::optional<uint32_t> SocketOwnerIn(std::string_view text, const std::string& from_addr,
                                      int from_port, const std::string& to_addr, int to_port) {
  const auto from = Endpoint(from_addr, from_port);
  const auto to = Endpoint(to_addr, to_port);
  if (!from || !to) return std::nullopt;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string sl, local, remote, st, queues, timer, retransmits;
    uint64_t uid = 0;
    if (!(f >> sl >> local >> remote >> st >> queues >> timer >> retransmits >> uid)) continue;
    if (local == *from && remote == *to && uid <= UINT32_MAX) return static_cast<uint32_t>(uid);
  }
  return std::nullopt;
}

std::optional<uint32_t> LoopbackPeerUid(const std::string& peer_addr, int peer_port,
                                        const std::string& local_addr, int local_port) {
  std::ifstream f("/proc/net/tcp");
  if (!f) return std::nullopt;
  std::stringstream text;
  text << f.rdbuf();
  return SocketOwnerIn(text.str(), peer_addr, peer_port, local_addr, local_port);
}

}  // namespace sluice
