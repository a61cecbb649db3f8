// Signing of controller<->agent messages. Each request has a `NodeAuth auth` field;
// the MAC is HMAC-SHA256(key, method + '\0' + request-serialized-with-auth-cleared +
// sender + issued_ms + nonce). Verify rejects bad MACs, messages older or newer than
// kMaxSkewMs, and nonces seen before (replay) within that window.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "common/clock.h"
#include "common/status.h"
#include "node.pb.h"

namespace sluice {

inline constexpr int64_t kMaxSkewMs = 60'000;

class NodeSigner {
 public:
  NodeSigner(std::string key, std::string sender, const Clock* clock)
      : key_(std::move(key)), sender_(std::move(sender)), clock_(clock) {}

  template <typename M>
  void Sign(std::string_view method, M* msg) const {
    msg->clear_auth();
    std::string body;
    msg->SerializeToString(&body);
    *msg->mutable_auth() = MakeAuth(method, body);
  }

 private:
  NodeAuth MakeAuth(std::string_view method, const std::string& body) const;
  std::string key_;
  std::string sender_;
  const Clock* clock_;
};

class NodeVerifier {
 public:
  NodeVerifier(std::string key, const Clock* clock) : key_(std::move(key)), clock_(clock) {}

  // On success returns the sender name from the auth block.
  template <typename M>
  Expected<std::string> Verify(std::string_view method, const M& msg) {
    M copy = msg;
    copy.clear_auth();
    std::string body;
    copy.SerializeToString(&body);
    return Check(method, body, msg.auth());
  }

 private:
  Expected<std::string> Check(std::string_view method, const std::string& body,
                              const NodeAuth& auth);
  std::string key_;
  const Clock* clock_;
  std::mutex mu_;
  std::unordered_set<std::string> seen_;
  std::deque<std::pair<int64_t, std::string>> seen_order_;
};

}  // namespace sluice
