// TokenVerifier: who sent a request, from the token it carries. Two kinds of token:
//  - Sluice credentials (rpc/credential.h), signed with the cluster key: what the
//    commands get from the ident socket or for a MUNGE credential;
//  - with AuthAltTypes=auth/jwt, Slurm's JWTs (jwt.h), signed with the jwt_key: what
//    `scontrol token` prints, sent by slurmrestd clients as X-SLURM-USER-TOKEN. The
//    user is the token's "sun", looked up in the controller's passwd database.
// `user_name` (X-SLURM-USER-NAME, gRPC metadata "x-sluice-user") may name another user
// only when the token is root's or the controller's own user's (a trusted proxy), as
// Slurm allows; otherwise it must be the token's user. Every refusal is
// kUnauthenticated, its message saying why without echoing the token.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

class TokenVerifier {
 public:
  // `service_uid`: the controller's own uid (trusted like root as a proxy).
  TokenVerifier(std::string cluster_key, const Clock* clock, uint32_t service_uid)
      : cluster_key_(std::move(cluster_key)), clock_(clock), service_uid_(service_uid) {}

  // Accepts JWTs signed with `key` from now on.
  void EnableJwt(std::string key) { jwt_key_ = std::move(key); }
  bool jwt_enabled() const { return !jwt_key_.empty(); }
  const std::string& jwt_key() const { return jwt_key_; }

  Expected<Caller> Verify(std::string_view token, std::string_view user_name = {}) const;

 private:
  Expected<Caller> VerifyJwtCaller(std::string_view token, std::string_view user_name) const;

  std::string cluster_key_;
  const Clock* clock_;
  uint32_t service_uid_;
  std::string jwt_key_;
};

// getpwnam: the uid and primary gid of `name`; NotFound when there is no such user.
Expected<Caller> LookUpUser(const std::string& name);
// getpwuid: the name of `uid`; NotFound when it has none.
Expected<std::string> UserNameOf(uint32_t uid);

}  // namespace sluice::ctld
