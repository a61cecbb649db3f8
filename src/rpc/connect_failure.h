// Whether a failed gRPC call provably never reached its server: gRPC fails an RPC before
// sending it when its channel cannot connect, with these words (and nothing after a
// connection was made says them). Such a call may be retried, even elsewhere; any other
// failure may have been carried out.
#pragma once

#include <string_view>

namespace sluice {

inline bool GrpcNeverConnected(std::string_view msg) {
  for (std::string_view w :
       {"failed to connect", "Connection refused", "connections to all backends failing",
        "No route to host", "Name resolution failure", "DNS resolution failed"}) {
    if (msg.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace sluice
