// User credentials for the client API. A command obtains a short-lived token from the
// controller's ident socket (a Unix socket; the controller reads the caller's uid/gid
// with SO_PEERCRED, so nobody can claim another uid) and sends it with every RPC in
// gRPC metadata "x-sluice-cred". The token is HMAC-signed with the cluster key, so
// the controller verifies it without state. MUNGE/JWT credentials can later be added
// as other token kinds under the same metadata key.
//
// Token format (v1): hex("uid:gid:expires_ms") '.' hex(HMAC-SHA256(key, "sluice-cred-v1\n"
// + "uid:gid:expires_ms")), lowercase hex, all decimal fields without signs or padding.
// Tokens are bearer tokens: anyone holding one acts as that uid until it expires, so
// keep their lifetime short (IdentServer's ttl) and never log them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice {

inline constexpr char kCredMetadataKey[] = "x-sluice-cred";
// The user a proxy (sluicerestd) acts for: X-SLURM-USER-NAME (ctld/services/token_verifier.h).
inline constexpr char kUserMetadataKey[] = "x-sluice-user";
// Tokens whose expiry lies further ahead than this are rejected (a forged or
// misconfigured far-future token must not live forever).
inline constexpr int64_t kMaxCredentialTtlMs = 24LL * 3600 * 1000;

struct Credential {
  uint32_t uid = 0;
  uint32_t gid = 0;
  int64_t expires_ms = 0;
};

std::string SignCredential(const std::string& key, const Credential& cred);
// Checks the MAC and expiry (now_ms < expires_ms <= now_ms + kMaxCredentialTtlMs).
// Errors are kUnauthenticated ("Invalid credential: <why>"); an empty key is kInternal.
Expected<Credential> VerifyCredential(const std::string& key, std::string_view token,
                                      int64_t now_ms);

// HMAC-SHA256(key, data), raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
// Random bytes from the OS (getrandom(2)); aborts only if the kernel cannot supply any.
std::string RandomBytes(size_t n);
// Lowercase hex; HexDecode accepts either case and fails on odd length or bad digits.
std::string HexEncode(std::string_view bytes);
Expected<std::string> HexDecode(std::string_view hex);

// Reads the cluster key file (creating it when `create` and it does not exist: 32
// random bytes written as hex, mode 0600, created atomically so concurrent creators
// agree on one key). The key is the file's text with surrounding whitespace trimmed; it
// must be at least 32 characters. A key file that is not a regular file, or that group
// or others may read or write, is refused (kPermissionDenied) with a message saying so;
// so is, when the caller runs as root, a key file not owned by root.
Expected<std::string> LoadClusterKey(const std::string& path, bool create);

}  // namespace sluice
