// Whether a failed gRPC call provably never reached a controller that could carry it out:
// gRPC fails an RPC before sending it when its channel cannot connect, with these words
// (and nothing after a connection was made says them); a standby controller answers every
// call with kStandbyAnswer (ctld/runtime/standby_server.h) and does nothing else. Such a
// call may be retried, even elsewhere; any other failure may have been carried out.
#pragma once

#include <string_view>

namespace sluice {

// The start of a standby controller's answer. No other error may contain it.
inline constexpr char kStandbyAnswer[] = "standby controller";

inline bool GrpcNeverConnected(std::string_view msg) {
  constexpr std::string_view kWords[] = {
      "failed to connect", "Connection refused",      "connections to all backends failing",
      "No route to host",  "Name resolution failure", "DNS resolution failed",
      kStandbyAnswer};
  for (std::string_view w : kWords) {
    if (msg.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace sluice
