// Credential tokens, HMAC, hex and randomness helpers.
#include "rpc/credential.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace sluice {

namespace {

constexpr char kCredDomain[] = "sluice-cred-v1\n";
constexpr size_t kMaxTokenLen = 512;
constexpr size_t kMacLen = 32;

Status BadToken(const std::string& why) { return Unauthenticated("Invalid credential: " + why); }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses a decimal field with no sign, no padding beyond "0" itself, no trailing bytes.
template <typename T>
bool ParseField(std::string_view text, T* out) {
  if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
  if (text[0] < '0' || text[0] > '9') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string CredBody(const Credential& cred) {
  return std::to_string(cred.uid) + ":" + std::to_string(cred.gid) + ":" +
         std::to_string(cred.expires_ms);
}

Expected<Credential> ParseBody(std::string_view body) {
  size_t a = body.find(':');
  size_t b = a == std::string_view::npos ? a : body.find(':', a + 1);
  if (b == std::string_view::npos || body.find(':', b + 1) != std::string_view::npos) {
    return BadToken("malformed token");
  }
  Credential cred;
  if (!ParseField(body.substr(0, a), &cred.uid) ||
      !ParseField(body.substr(a + 1, b - a - 1), &cred.gid) ||
      !ParseField(body.substr(b + 1), &cred.expires_ms)) {
    return BadToken("malformed token");
  }
  return cred;
}

}  // namespace

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Expected<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return InvalidArgument("hex string has odd length");
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("invalid hex digit");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // An empty key is passed as a valid pointer: HMAC() treats NULL as "reuse a context".
  static const unsigned char kEmpty = 0;
  const void* key_ptr = key.empty() ? static_cast<const void*>(&kEmpty) : key.data();
  HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return std::string(reinterpret_cast<char*>(mac), len);
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      std::perror("sluice: getrandom");
      std::abort();  // no safe way to continue without randomness
    }
    got += static_cast<size_t>(r);
  }
  return out;
}

std::string SignCredential(const std::string& key, const Credential& cred) {
  std::string body = CredBody(cred);
  return HexEncode(body) + "." + HexEncode(HmacSha256(key, kCredDomain + body));
}

Expected<Credential> VerifyCredential(const std::string& key, std::string_view token,
                                      int64_t now_ms) {
  if (key.empty()) return Internal("Cluster key is not loaded; cannot verify credentials");
  if (token.empty()) return BadToken("no credential supplied");
  size_t dot = token.find('.');
  if (token.size() > kMaxTokenLen || dot == std::string_view::npos) {
    return BadToken("malformed token");
  }
  auto body = HexDecode(token.substr(0, dot));
  auto mac = HexDecode(token.substr(dot + 1));
  if (!body.ok() || !mac.ok() || mac->size() != kMacLen) return BadToken("malformed token");
  std::string want = HmacSha256(key, kCredDomain + *body);
  if (CRYPTO_memcmp(want.data(), mac->data(), kMacLen) != 0) return BadToken("bad signature");
  ASSIGN_OR_RETURN(Credential cred, ParseBody(*body));
  if (cred.expires_ms <= now_ms) return BadToken("expired");
  if (cred.expires_ms - now_ms > kMaxCredentialTtlMs) {
    return BadToken("expiry too far in the future");
  }
  return cred;
}

}  // namespace sluice
