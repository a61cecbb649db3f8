// Whether a failed gRPC call provably never reached a controller that could carry it out:
// gRPC fails an RPC before sending it when its channel cannot connect, with these words
// (and nothing after a connection was made says them); a standby controller answers every
// call with kStandbyAnswer (ctld/runtime/standby_server.h) and does nothing else. Such a
// call may be retried, even elsewhere; any other failure may have been carried out.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstddef>
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

// With several controllers (SlurmctldHost lines): runs `call(i)` -> grpc::Status on
// controller i, starting at *current and going round, past each that did not carry the
// call out (GrpcNeverConnected); with `past_timeouts` also past one that did not answer
// in time (a timeout or a lost connection), while another is left. *current becomes the
// controller whose answer is returned. When none answered: a silence if there was one
// (someone may be there), else the last refusal.
template <typename Call>
grpc::Status CallEachController(size_t count, std::atomic<size_t>* current, bool past_timeouts,
                                Call call) {
  const size_t first = current->load();
  grpc::Status refusal, silence;
  for (size_t i = 0; i < count; ++i) {
    const size_t at = (first + i) % count;
    grpc::Status st = call(at);
    const bool refused =
        st.error_code() == grpc::StatusCode::UNAVAILABLE && GrpcNeverConnected(st.error_message());
    const bool silent = !refused && (st.error_code() == grpc::StatusCode::UNAVAILABLE ||
                                     st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
    if (!refused && !(silent && past_timeouts && i + 1 < count)) {
      *current = at;
      return st;
    }
    (refused ? refusal : silence) = st;
  }
  return silence.ok() ? refusal : silence;
}

}  // namespace sluice
