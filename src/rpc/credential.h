// User credentials for the client API. A command obtains a short-lived token from the
// controller's ident socket (a Unix socket; the controller reads the caller's uid/gid
// with SO_PEERCRED, so nobody can claim another uid) and sends it with every RPC in
// gRPC metadata "x-sluice-cred". The token is HMAC-signed with the cluster key, so
// the controller verifies it without state. MUNGE/JWT credentials can later be added
// as other token kinds under the same metadata key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice {

inline constexpr char kCredMetadataKey[] = "x-sluice-cred";

struct Credential {
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t expires_ms = 0;
};

std::string SignCredential(const std::string& key, const Credential& cred);
Expected<Credential> VerifyCredential(const std::string& key, std::string_view token,
                                      int64_t now_ms);

// HMAC-SHA256(key, data), raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
// Random bytes from the OS.
std::string RandomBytes(size_t n);

// Reads the cluster key file (creating it with mode 0600 and 32 random bytes when
// `create` and it does not exist).
Expected<std::string> LoadClusterKey(const std::string& path, bool create);

}  // namespace sluice
