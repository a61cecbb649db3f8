#include "rpc/protocol.h"

#include <atomic>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace sluice {
namespace {

std::atomic<int> spoken{kProtocolVersion};

}  // namespace

int SpokenProtocol() { return spoken.load(std::memory_order_relaxed); }

void SpeakProtocol(int version) { spoken.store(version, std::memory_order_relaxed); }

int PeerProtocol(int sent) { return sent > 0 ? sent : 1; }

int PeerProtocol(std::string_view header) {
  int v = 0;
  auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), v);
  return ec == std::errc() && end == header.data() + header.size() ? PeerProtocol(v) : 1;
}

Status CheckPeerProtocol(int peer, std::string_view who, std::string_view self) {
  const int own = SpokenProtocol();
  if (std::abs(peer - own) <= 1) return Status::Ok();
  return FailedPrecondition(fmt::format(
      "{} speaks protocol {}; this {} speaks {} and serves {} to {}: upgrade one version at a "
      "time",
      who, peer, self, own, own - 1, own + 1));
}

}  // namespace sluice
