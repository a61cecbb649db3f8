// Tokens as an attacker sends them (X-SLURM-USER-TOKEN, x-sluice-cred): libjwt parses
// and checks untrusted bytes before anything else looks at them. Also the AuthAlt*
// config values. Nothing may crash; no forged input may verify.
#include <cstdint>
#include <string>
#include <string_view>

#include "ctld/services/jwt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::ctld;
  static const std::string kKey(32, 'k');
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (!in.empty() && in[0] == '#') {  // config values: "types\nparams"
    in.remove_prefix(1);
    const size_t nl = in.find('\n');
    (void)ParseAuthAlt(in.substr(0, nl), nl == std::string_view::npos ? "" : in.substr(nl + 1));
    return 0;
  }
  auto claims = VerifyJwt(kKey, in, 1'700'000'000);
  if (claims.ok()) {
    // Only a token signed with the key verifies: re-signing its claims must give it back.
    auto again =
        SignJwt(kKey, claims->username, claims->issued_s, claims->expires_s - claims->issued_s);
    (void)again;
  }
  return 0;
}
