#include "ctld/services/token_verifier.h"

#include <pwd.h>
#include <unistd.h>

#include <vector>

#include "ctld/services/jwt.h"
#include "rpc/credential.h"

namespace sluice::ctld {
namespace {

std::vector<char> PasswdBuffer() {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  return std::vector<char>(size > 0 ? static_cast<size_t>(size) : 16384);
}

}  // namespace

Expected<Caller> LookUpUser(const std::string& name) {
  std::vector<char> buf = PasswdBuffer();
  struct passwd pw {};
  struct passwd* found = nullptr;
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return NotFound("Invalid user: " + name);
  return Caller{found->pw_uid, found->pw_gid};
}

Expected<std::string> UserNameOf(uint32_t uid) {
  std::vector<char> buf = PasswdBuffer();
  struct passwd pw {};
  struct passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr)
    return NotFound("Invalid user id: " + std::to_string(uid));
  return std::string(found->pw_name);
}

Expected<Caller> TokenVerifier::Verify(std::string_view token, std::string_view user_name) const {
  if (jwt_enabled() && LooksLikeJwt(token)) return VerifyJwtCaller(token, user_name);
  auto cred = VerifyCredential(cluster_key_, token, clock_->NowMs());
  if (!cred.ok()) return Unauthenticated(cred.status().message());
  Caller caller{cred->uid, cred->gid};
  if (!user_name.empty()) {
    // A command never sends a user name; a proxy holding a credential may act for others.
    auto other = LookUpUser(std::string(user_name));
    if (!other.ok()) return Unauthenticated(other.status().message());
    if (other->uid != caller.uid && caller.uid != 0 && caller.uid != service_uid_)
      return Unauthenticated("Invalid credential: may not act as user " + std::string(user_name));
    caller = *other;
  }
  return caller;
}

Expected<Caller> TokenVerifier::VerifyJwtCaller(std::string_view token,
                                                std::string_view user_name) const {
  auto claims = VerifyJwt(jwt_key_, token, clock_->NowMs() / 1000);
  if (!claims.ok()) return claims.status();
  auto owner = LookUpUser(claims->username);
  if (!owner.ok()) return Unauthenticated("Invalid JWT: unknown user " + claims->username);
  if (user_name.empty() || user_name == claims->username) return *owner;
  if (owner->uid != 0 && owner->uid != service_uid_)
    return Unauthenticated("Invalid JWT: token of " + claims->username + " used for user " +
                           std::string(user_name));
  auto other = LookUpUser(std::string(user_name));
  if (!other.ok()) return Unauthenticated("Invalid JWT: unknown user " + std::string(user_name));
  return *other;
}

}  // namespace sluice::ctld
