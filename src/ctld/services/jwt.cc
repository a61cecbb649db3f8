#include "ctld/services/jwt.h"

#include <jwt.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/text_util.h"

namespace sluice::ctld {
namespace {

struct JwtFree {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

Status Invalid(const std::string& why) { return Unauthenticated("Invalid JWT: " + why); }

bool IsBase64Url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

Expected<std::string> SignJwt(std::string_view key, const std::string& username, int64_t now_s,
                              int64_t lifespan_s) {
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return Internal("jwt_new failed");
  JwtPtr jwt(raw);
  if (jwt_set_alg(jwt.get(), JWT_ALG_HS256, reinterpret_cast<const unsigned char*>(key.data()),
                  static_cast<int>(key.size())) != 0 ||
      jwt_add_grant_int(jwt.get(), "iat", now_s) != 0 ||
      jwt_add_grant_int(jwt.get(), "exp", now_s + lifespan_s) != 0 ||
      jwt_add_grant(jwt.get(), "sun", username.c_str()) != 0)
    return Internal("cannot build a JWT");
  char* text = jwt_encode_str(jwt.get());
  if (text == nullptr) return Internal("jwt_encode_str failed");
  std::string token(text);
  free(text);
  return token;
}

Expected<JwtClaims> VerifyJwt(std::string_view key, std::string_view token, int64_t now_s) {
  if (!LooksLikeJwt(token)) return Invalid("malformed");
  const std::string text(token);
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, text.c_str(), reinterpret_cast<const unsigned char*>(key.data()),
                 static_cast<int>(key.size())) != 0)
    return Invalid("signature or format rejected");
  JwtPtr jwt(raw);
  if (jwt_get_alg(jwt.get()) != JWT_ALG_HS256) return Invalid("algorithm is not HS256");
  JwtClaims claims;
  errno = 0;
  claims.expires_s = jwt_get_grant_int(jwt.get(), "exp");
  if (errno != 0) return Invalid("no exp claim");
  if (claims.expires_s < now_s) return Invalid("token expired");
  claims.issued_s = jwt_get_grant_int(jwt.get(), "iat");
  const char* user = jwt_get_grant(jwt.get(), "sun");
  if (user == nullptr) user = jwt_get_grant(jwt.get(), "username");
  if (user == nullptr || *user == '\0') return Invalid("no user name claim");
  claims.username = user;
  return claims;
}

bool LooksLikeJwt(std::string_view token) {
  int dots = 0;
  size_t part = 0;
  for (char c : token) {
    if (c == '.') {
      if (part == 0) return false;
      ++dots;
      part = 0;
    } else if (IsBase64Url(c)) {
      ++part;
    } else {
      return false;
    }
  }
  return dots == 2 && part > 0;
}

Expected<std::string> LoadJwtKey(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return NotFound("jwt_key " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return PermissionDenied("jwt_key " + path + " is not a regular file");
  if (st.st_mode & S_IRWXO)
    return PermissionDenied("jwt_key " + path + " must not be accessible by others (chmod 0600)");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) return NotFound("jwt_key " + path + ": cannot read");
  std::string key = bytes.str();
  if (key.size() < 32) return InvalidArgument("jwt_key " + path + " holds fewer than 32 bytes");
  return key;
}

Expected<JwtConfig> ParseAuthAlt(std::string_view types, std::string_view params) {
  JwtConfig config;
  for (std::string_view part : Split(types, ',')) {
    const std::string type(Trim(part));
    if (type.empty()) continue;
    if (type != "auth/jwt")
      return InvalidArgument("AuthAltTypes: " + type + " is not supported (only auth/jwt)");
    config.enabled = true;
  }
  for (std::string_view part : Split(params, ',')) {
    const std::string param(Trim(part));
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    const std::string key = param.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : param.substr(eq + 1);
    if (key == "jwt_key" && !value.empty()) {
      config.key_path = value;
    } else if (key == "max_token_lifespan") {
      int64_t n = 0;
      if (!ParseNonNegative(value, &n) || n == 0)
        return InvalidArgument("AuthAltParameters: invalid max_token_lifespan=" + value);
      config.max_lifespan_s = n;
    } else if (key == "disable_token_creation" && eq == std::string::npos) {
      config.creation_disabled = true;
    } else {
      return InvalidArgument("AuthAltParameters: unknown option " + param);
    }
  }
  return config;
}

}  // namespace sluice::ctld
