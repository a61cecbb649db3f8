#include "common/signal_spec.h"

#include <charconv>
#include <string>

#include "common/slurm_format.h"

namespace sluice {

Expected<SignalSpec> ParseSignalSpec(std::string_view s) {
  Status bad = InvalidArgument("Invalid --signal specification");
  SignalSpec out;
  std::string_view rest = s;
  size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    std::string_view flags = rest.substr(0, colon);
    if (flags.empty() || flags.find_first_not_of("RB") != std::string_view::npos) return bad;
    out.batch_only = flags.find('B') != std::string_view::npos;
    rest = rest.substr(colon + 1);
  }
  size_t at = rest.find('@');
  std::string_view sig = rest.substr(0, at);
  if (sig.empty()) return bad;
  Expected<int> num = ParseSignal(sig);
  if (!num.ok()) return bad;
  out.signal = *num;
  if (at != std::string_view::npos) {
    std::string_view secs = rest.substr(at + 1);
    int v = 0;
    auto [p, ec] = std::from_chars(secs.data(), secs.data() + secs.size(), v);
    if (secs.empty() || ec != std::errc() || p != secs.data() + secs.size() || v < 0 || v > 65535) {
      return bad;
    }
    out.seconds = v;
  }
  return out;
}

}  // namespace sluice
