// The agent's client relay socket (noded/client_relay.h): bytes as a local process may
// write them, cut into frames by FrameReader (common/step_io.h) in chunks whose sizes
// the input picks, each kRelay payload parsed as a RelayRequest and bounded as the
// controller bounds a relayed call (rpc/request_limits.h). Nothing may crash, and no
// frame may cost more than its bounded payload.
#include <cstdint>
#include <string_view>

#include "common/step_io.h"
#include "node.pb.h"
#include "rpc/request_limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  sluice::FrameReader reader;
  for (size_t pos = 0; pos < bytes.size(); pos += chunk) {
    reader.Append(bytes.substr(pos, chunk));
    for (;;) {
      auto f = reader.Next();
      if (!f.ok()) return 0;  // the relay closes the connection
      if (!f->has_value()) break;
      if ((*f)->payload.size() > sluice::kMaxFramePayload) __builtin_trap();
      if ((*f)->type != sluice::FrameType::kRelay) return 0;
      sluice::RelayRequest req;
      if (!req.ParseFromString((*f)->payload)) return 0;
      if (req.has_launch_step()) (void)sluice::CheckRequestLimits(req.launch_step());
      if (req.has_keepalive()) (void)sluice::CheckRequestLimits(req.keepalive());
    }
  }
  return 0;
}
