// NodeSigner / NodeVerifier: see node_auth.h.
#include "rpc/node_auth.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <openssl/crypto.h>

#include "rpc/credential.h"
#include "rpc/protocol.h"

namespace sluice {

namespace {

constexpr char kNodeDomain[] = "sluice-node-v1";
constexpr size_t kMacBytes = 32;

void AppendField(std::string* out, std::string_view field) {
  uint64_t len = field.size();
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(len >> shift));
  out->append(field);
}

Status AuthError(const std::string& why) {
  return Unauthenticated("Invalid node message authentication: " + why);
}

}  // namespace

std::string SerializeForMac(const google::protobuf::MessageLite& msg) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    msg.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string NodeAuthMacInput(std::string_view method, std::string_view body,
                             std::string_view sender, int64_t issued_ms, std::string_view nonce) {
  std::string out;
  out.reserve(body.size() + method.size() + sender.size() + 96);
  AppendField(&out, kNodeDomain);
  AppendField(&out, method);
  AppendField(&out, body);
  AppendField(&out, sender);
  AppendField(&out, std::to_string(issued_ms));
  AppendField(&out, nonce);
  return out;
}

NodeAuth NodeSigner::MakeAuth(std::string_view method, const std::string& body) const {
  NodeAuth auth;
  auth.set_sender(sender_);
  auth.set_issued_ms(clock_->NowMs());
  auth.set_nonce(RandomBytes(kNonceBytes));
  auth.set_protocol(SpokenProtocol());
  auth.set_mac(HmacSha256(
      key_, NodeAuthMacInput(method, body, auth.sender(), auth.issued_ms(), auth.nonce())));
  return auth;
}

Expected<std::string> NodeVerifier::Check(std::string_view method, const std::string& body,
                                          const NodeAuth& auth) {
  if (key_.empty()) return Internal("Cluster key is not loaded; cannot verify node messages");
  if (auth.sender().empty() || auth.nonce().size() != kNonceBytes ||
      auth.mac().size() != kMacBytes) {
    return AuthError("missing or malformed auth block");
  }
  std::string want = HmacSha256(
      key_, NodeAuthMacInput(method, body, auth.sender(), auth.issued_ms(), auth.nonce()));
  if (CRYPTO_memcmp(want.data(), auth.mac().data(), kMacBytes) != 0) {
    return AuthError("bad MAC on " + std::string(method) + " claiming to be from " + auth.sender());
  }
  const int64_t now = clock_->NowMs();
  if (auth.issued_ms() < now - kMaxSkewMs || auth.issued_ms() > now + kMaxSkewMs) {
    return AuthError("message from " + auth.sender() + " issued " +
                     std::to_string(now - auth.issued_ms()) +
                     " ms ago is outside the allowed clock skew of " + std::to_string(kMaxSkewMs) +
                     " ms (check NTP)");
  }
  std::string id = auth.sender() + '\0' + auth.nonce();
  RETURN_IF_ERROR(Remember(id, auth.issued_ms(), now));
  return auth.sender();
}

Status NodeVerifier::Remember(const std::string& id, int64_t issued_ms, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  while (!seen_by_issued_.empty() && seen_by_issued_.begin()->first < now_ms - kMaxSkewMs) {
    seen_.erase(seen_by_issued_.begin()->second);
    seen_by_issued_.erase(seen_by_issued_.begin());
  }
  if (seen_.count(id)) return AuthError("replayed message (nonce already seen)");
  if (seen_.size() >= max_nonces_) {
    return Status(Code::kResourceExhausted,
                  "Node message replay cache is full; rejecting until entries expire");
  }
  seen_.insert(id);
  seen_by_issued_.emplace(issued_ms, id);
  return Status::Ok();
}

size_t NodeVerifier::nonce_cache_size() {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.size();
}

}  // namespace sluice
