// Signing of controller<->agent messages. Each request has a `NodeAuth auth` field;
// the MAC is HMAC-SHA256(key, M) where M is the length-prefixed (8-byte big-endian
// length, then bytes) concatenation of: "sluice-node-v1", method, the request serialized
// with auth cleared, sender, decimal issued_ms, nonce. Length prefixes keep field
// boundaries unambiguous. Verify rejects malformed auth blocks (empty sender, nonce not
// 16 bytes, MAC not 32 bytes), bad MACs, messages issued more than kMaxSkewMs before or
// after now, and (sender, nonce) pairs seen before (replay). Seen nonces are kept until
// their issued_ms is older than kMaxSkewMs (after that the time check rejects them
// anyway), in a cache bounded at max_nonces entries; when it is full, Verify fails
// closed (kResourceExhausted) rather than forgetting nonces that could be replayed.
// Errors are kUnauthenticated and start "Invalid node message authentication".
// The body is serialized deterministically; fields unknown to the receiver are kept
// and re-serialized, so peers on slightly different schemas still agree.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>

#include "common/clock.h"
#include "common/status.h"
#include "node.pb.h"

namespace sluice {

inline constexpr int64_t kMaxSkewMs = 60'000;
inline constexpr size_t kNonceBytes = 16;
inline constexpr size_t kMaxNonceCache = 1 << 20;

// Deterministic serialization (map entries sorted), so signer and verifier agree.
std::string SerializeForMac(const google::protobuf::MessageLite& msg);

// The bytes the MAC covers (exposed for tests and other languages' implementations).
std::string NodeAuthMacInput(std::string_view method, std::string_view body,
                             std::string_view sender, int64_t issued_ms, std::string_view nonce);

class NodeSigner {
 public:
  NodeSigner(std::string key, std::string sender, const Clock* clock)
      : key_(std::move(key)), sender_(std::move(sender)), clock_(clock) {}

  template <typename M>
  void Sign(std::string_view method, M* msg) const {
    msg->clear_auth();
    *msg->mutable_auth() = MakeAuth(method, SerializeForMac(*msg));
  }

 private:
  NodeAuth MakeAuth(std::string_view method, const std::string& body) const;
  std::string key_;
  std::string sender_;
  const Clock* clock_;
};

class NodeVerifier {
 public:
  NodeVerifier(std::string key, const Clock* clock, size_t max_nonces = kMaxNonceCache)
      : key_(std::move(key)), clock_(clock), max_nonces_(max_nonces) {}

  // On success returns the sender name from the auth block.
  template <typename M>
  Expected<std::string> Verify(std::string_view method, const M& msg) {
    M copy = msg;
    copy.clear_auth();
    return Check(method, SerializeForMac(copy), msg.auth());
  }

  // Number of remembered nonces (for tests and metrics).
  size_t nonce_cache_size();

 private:
  Expected<std::string> Check(std::string_view method, const std::string& body,
                              const NodeAuth& auth);
  Status Remember(const std::string& id, int64_t issued_ms, int64_t now_ms);
  std::string key_;
  const Clock* clock_;
  size_t max_nonces_;
  std::mutex mu_;
  std::unordered_set<std::string> seen_;                      // sender '\0' nonce
  std::set<std::pair<int64_t, std::string>> seen_by_issued_;  // (issued_ms, id), for eviction
};

}  // namespace sluice
