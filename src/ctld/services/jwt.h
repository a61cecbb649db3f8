// JSON Web Tokens as Slurm's auth/jwt makes them (AuthAltTypes=auth/jwt,
// AuthAltParameters=jwt_key=FILE): HS256 over the raw bytes of the key file, claims
// "iat" and "exp" (seconds since the epoch) and "sun" (the user name; "username" is
// accepted when "sun" is absent, as Slurm does). Signed and checked with libjwt.
//   Expected<std::string> t = SignJwt(key, "alice", now_s, 1800);
//   Expected<JwtClaims> c = VerifyJwt(key, *t, now_s);   // c->username == "alice"
// Errors are kUnauthenticated "Invalid JWT: <why>" (bad signature, other algorithm,
// expired, no user name); they never echo the token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::ctld {

struct JwtClaims {
  std::string username;
  int64_t issued_s = 0;
  int64_t expires_s = 0;
};

Expected<std::string> SignJwt(std::string_view key, const std::string& username, int64_t now_s,
                              int64_t lifespan_s);
Expected<JwtClaims> VerifyJwt(std::string_view key, std::string_view token, int64_t now_s);

// Three dot-separated base64url parts: a JWT rather than a Sluice credential token.
bool LooksLikeJwt(std::string_view token);

// The jwt_key file: a regular file of at least 32 bytes that others cannot read or
// write (kPermissionDenied otherwise, as Slurm refuses such a key). Its bytes as they are.
Expected<std::string> LoadJwtKey(const std::string& path);

// AuthAltTypes / AuthAltParameters as Slurm reads them: types "auth/jwt" (the only
// alternative Sluice has; another is InvalidArgument); parameters a comma list of
// jwt_key=FILE (default <StateSaveLocation>/jwt_hs256.key, left empty here),
// max_token_lifespan=SECONDS and disable_token_creation (an unknown one: InvalidArgument).
struct JwtConfig {
  bool enabled = false;
  std::string key_path;
  int64_t max_lifespan_s = 0;  // 0 = no limit
  bool creation_disabled = false;
};
Expected<JwtConfig> ParseAuthAlt(std::string_view types, std::string_view params);

}  // namespace sluice::ctld
