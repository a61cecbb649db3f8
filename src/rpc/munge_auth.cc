// MungeEncode / MungeDecode over libmunge: see munge_auth.h.
#include "rpc/munge_auth.h"

#include <cstdlib>
#include <cstring>

#if SLUICE_HAVE_MUNGE
#include <munge.h>
#endif

namespace sluice {

bool AuthTypeIsMunge(std::string_view auth_type) { return auth_type == "auth/munge"; }

std::string MungeSocketFromAuthInfo(std::string_view auth_info) {
  size_t pos = 0;
  while (pos <= auth_info.size()) {
    size_t comma = auth_info.find(',', pos);
    if (comma == std::string_view::npos) comma = auth_info.size();
    std::string_view item = auth_info.substr(pos, comma - pos);
    if (item.substr(0, 7) == "socket=") return std::string(item.substr(7));
    pos = comma + 1;
  }
  return "";
}

#if SLUICE_HAVE_MUNGE

namespace {

// A munge context with the socket set; freed on scope exit.
class MungeCtx {
 public:
  explicit MungeCtx(const std::string& socket) : ctx_(munge_ctx_create()) {
    if (ctx_ && !socket.empty()) {
      err_ = munge_ctx_set(ctx_, MUNGE_OPT_SOCKET, socket.c_str());
    }
  }
  ~MungeCtx() {
    if (ctx_) munge_ctx_destroy(ctx_);
  }
  munge_ctx_t get() const { return ctx_; }
  munge_err_t err() const { return ctx_ ? err_ : EMUNGE_NO_MEMORY; }
  std::string Why(munge_err_t e) const {
    const char* s = ctx_ ? munge_ctx_strerror(ctx_) : nullptr;
    return s ? s : munge_strerror(e);
  }

 private:
  munge_ctx_t ctx_;
  munge_err_t err_ = EMUNGE_SUCCESS;
};

}  // namespace

bool MungeSupported() { return true; }

Expected<std::string> MungeEncode(const std::string& socket, std::string_view payload) {
  MungeCtx ctx(socket);
  if (ctx.err() != EMUNGE_SUCCESS) return Unavailable("Munge encode failed: " + ctx.Why(ctx.err()));
  char* cred = nullptr;
  munge_err_t e = munge_encode(&cred, ctx.get(), payload.data(), static_cast<int>(payload.size()));
  if (e != EMUNGE_SUCCESS) {
    std::free(cred);
    return Unavailable("Munge encode failed: " + ctx.Why(e));
  }
  std::string out(cred);
  std::free(cred);
  return out;
}

Expected<MungeIdentity> MungeDecode(const std::string& socket, std::string_view credential) {
  if (credential.empty()) return Unauthenticated("Invalid MUNGE credential: empty");
  if (credential.size() > kMaxMungeCredentialLen) {
    return Unauthenticated("Invalid MUNGE credential: too long");
  }
  MungeCtx ctx(socket);
  if (ctx.err() != EMUNGE_SUCCESS) return Internal("Munge decode failed: " + ctx.Why(ctx.err()));
  std::string cred(credential);  // NUL-terminated copy
  void* buf = nullptr;
  int len = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  munge_err_t e = munge_decode(cred.c_str(), ctx.get(), &buf, &len, &uid, &gid);
  std::string payload = buf ? std::string(static_cast<char*>(buf), len > 0 ? len : 0) : "";
  std::free(buf);
  switch (e) {
    case EMUNGE_SUCCESS:
      break;
    case EMUNGE_SOCKET:
    case EMUNGE_TIMEOUT:
    case EMUNGE_NO_MEMORY:
    case EMUNGE_SNAFU:
    case EMUNGE_BAD_ARG:
      return Internal("Munge decode failed: " + ctx.Why(e));
    default:  // invalid, expired, rewound, replayed, unauthorized, bad cipher/mac/zip...
      return Unauthenticated("Invalid MUNGE credential: " + ctx.Why(e));
  }
  if (payload != kMungePayload) {
    return Unauthenticated("Invalid MUNGE credential: not a sluice authentication credential");
  }
  return MungeIdentity{static_cast<uint32_t>(uid), static_cast<uint32_t>(gid)};
}

#else  // !SLUICE_HAVE_MUNGE

bool MungeSupported() { return false; }

Expected<std::string> MungeEncode(const std::string&, std::string_view) {
  return FailedPrecondition("AuthType=auth/munge: sluice was built without libmunge");
}

Expected<MungeIdentity> MungeDecode(const std::string&, std::string_view) {
  return FailedPrecondition("AuthType=auth/munge: sluice was built without libmunge");
}

#endif

}  // namespace sluice
