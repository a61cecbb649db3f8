// MUNGE credentials for commands on hosts without the controller's ident socket
// (AuthType=auth/munge). The command encodes a MUNGE credential with its local munged
// (libmunge munge_encode; munged vouches for the caller's uid/gid) and sends it in the
// AuthMunge rpc; the controller decodes it with its own munged (munge_decode) and issues
// a normal credential token (credential.h) for the uid/gid inside the credential. The
// request names no user: identity comes only from MUNGE.
//   Expected<std::string> cred = MungeEncode("/run/munge/munge.socket.2");
//   Expected<MungeIdentity> who = MungeDecode(socket, *cred);   // on the controller
// The payload is kMungePayload; a credential with another payload (made for some other
// service sharing the MUNGE key) is refused. munged remembers decoded credentials, so a
// second decode of the same one fails with "Replayed credential".
// Errors:
//   MungeEncode: kUnavailable "Munge encode failed: <munge's reason>"
//   MungeDecode: kUnauthenticated "Invalid MUNGE credential: <munge's reason>" for
//     invalid / expired / rewound / replayed / foreign credentials; kInternal
//     "Munge decode failed: <reason>" when the controller's munged cannot be used.
// Without libmunge at build time (SLUICE_HAVE_MUNGE 0) both fail with kFailedPrecondition.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice {

inline constexpr char kMungePayload[] = "sluice-auth-v1";
inline constexpr size_t kMaxMungeCredentialLen = 8192;

struct MungeIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

bool MungeSupported();
// `socket` empty = libmunge's default socket. `payload` is for tests only.
Expected<std::string> MungeEncode(const std::string& socket,
                                  std::string_view payload = kMungePayload);
Expected<MungeIdentity> MungeDecode(const std::string& socket, std::string_view credential);

// AuthType=auth/munge in the config's raw keys.
bool AuthTypeIsMunge(std::string_view auth_type);
// The "socket=PATH" item of Slurm's AuthInfo (comma-separated key=value); "" if none.
std::string MungeSocketFromAuthInfo(std::string_view auth_info);

}  // namespace sluice
