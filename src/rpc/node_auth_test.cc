#include "rpc/node_auth.h"

#include <gtest/gtest.h>

#include "rpc/credential.h"

namespace sluice {
namespace {

const std::string kKey(64, 'z');

HeartbeatRequest MakeHeartbeat() {
  HeartbeatRequest req;
  req.set_node("gpu01");
  req.add_running_job_ids(42);
  req.add_running_job_ids(43);
  return req;
}

class NodeAuthTest : public ::testing::Test {
 protected:
  ManualClock clock_{1'700'000'000};
  NodeSigner signer_{kKey, "gpu01", &clock_};
  NodeVerifier verifier_{kKey, &clock_};
};

TEST_F(NodeAuthTest, RoundTrip) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  EXPECT_EQ(req.auth().sender(), "gpu01");
  EXPECT_EQ(req.auth().issued_ms(), clock_.NowMs());
  EXPECT_EQ(req.auth().nonce().size(), kNonceBytes);
  EXPECT_EQ(req.auth().mac().size(), 32u);
  auto sender = verifier_.Verify("Heartbeat", req);
  ASSERT_TRUE(sender.ok()) << sender.status().message();
  EXPECT_EQ(*sender, "gpu01");
}

TEST_F(NodeAuthTest, SurvivesTheWire) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  std::string wire;
  ASSERT_TRUE(req.SerializeToString(&wire));
  HeartbeatRequest received;
  ASSERT_TRUE(received.ParseFromString(wire));
  EXPECT_TRUE(verifier_.Verify("Heartbeat", received).ok());
}

TEST_F(NodeAuthTest, TamperedBodyRejected) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  req.add_running_job_ids(99);
  auto got = verifier_.Verify("Heartbeat", req);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kUnauthenticated);
  EXPECT_NE(got.status().message().find("bad MAC"), std::string::npos);
}

TEST_F(NodeAuthTest, TamperedAuthFieldsRejected) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  auto expect_rejected = [&](HeartbeatRequest m, const char* what) {
    EXPECT_FALSE(verifier_.Verify("Heartbeat", m).ok()) << what;
  };
  HeartbeatRequest m = req;
  m.mutable_auth()->set_sender("gpu02");
  expect_rejected(m, "sender");
  m = req;
  m.mutable_auth()->set_issued_ms(req.auth().issued_ms() + 1);
  expect_rejected(m, "issued_ms");
  m = req;
  (*m.mutable_auth()->mutable_nonce())[0] ^= 1;
  expect_rejected(m, "nonce");
  m = req;
  (*m.mutable_auth()->mutable_mac())[31] ^= 1;
  expect_rejected(m, "mac");
  // Same message presented as another method.
  EXPECT_FALSE(verifier_.Verify("LaunchJob", req).ok());
  // The untouched original still verifies (nothing above consumed its nonce).
  EXPECT_TRUE(verifier_.Verify("Heartbeat", req).ok());
}

TEST_F(NodeAuthTest, WrongKeyAndMissingAuthRejected) {
  NodeSigner other("another-key-another-key-another-key", "gpu01", &clock_);
  HeartbeatRequest req = MakeHeartbeat();
  other.Sign("Heartbeat", &req);
  EXPECT_FALSE(verifier_.Verify("Heartbeat", req).ok());
  auto unsigned_msg = verifier_.Verify("Heartbeat", MakeHeartbeat());
  ASSERT_FALSE(unsigned_msg.ok());
  EXPECT_NE(unsigned_msg.status().message().find("malformed auth block"), std::string::npos);
}

TEST_F(NodeAuthTest, StaleAndFutureRejected) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  clock_.AdvanceMs(kMaxSkewMs + 1);
  auto stale = verifier_.Verify("Heartbeat", req);
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.status().message().find("clock skew"), std::string::npos);

  ManualClock ahead(1'700'000'000);
  ahead.AdvanceMs(kMaxSkewMs + 1);
  NodeSigner future_signer(kKey, "gpu01", &ahead);
  ManualClock now(1'700'000'000);
  NodeVerifier verifier(kKey, &now);
  HeartbeatRequest future = MakeHeartbeat();
  future_signer.Sign("Heartbeat", &future);
  EXPECT_FALSE(verifier.Verify("Heartbeat", future).ok());
  now.AdvanceMs(2);  // now within the allowed skew
  EXPECT_TRUE(verifier.Verify("Heartbeat", future).ok());
}

TEST_F(NodeAuthTest, EdgeOfSkewWindowAccepted) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  clock_.AdvanceMs(kMaxSkewMs);
  EXPECT_TRUE(verifier_.Verify("Heartbeat", req).ok());
}

TEST_F(NodeAuthTest, ReplayRejected) {
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  ASSERT_TRUE(verifier_.Verify("Heartbeat", req).ok());
  auto again = verifier_.Verify("Heartbeat", req);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("replayed"), std::string::npos);
  clock_.AdvanceMs(kMaxSkewMs / 2);
  EXPECT_FALSE(verifier_.Verify("Heartbeat", req).ok());
  // A fresh signature of the same content is a new message.
  signer_.Sign("Heartbeat", &req);
  EXPECT_TRUE(verifier_.Verify("Heartbeat", req).ok());
}

TEST_F(NodeAuthTest, NonceCacheEvictsExpiredEntries) {
  for (int i = 0; i < 100; ++i) {
    HeartbeatRequest req = MakeHeartbeat();
    signer_.Sign("Heartbeat", &req);
    ASSERT_TRUE(verifier_.Verify("Heartbeat", req).ok());
    clock_.AdvanceMs(1000);
  }
  // Only nonces issued within the last kMaxSkewMs are kept.
  EXPECT_LE(verifier_.nonce_cache_size(), 62u);
  EXPECT_GE(verifier_.nonce_cache_size(), 59u);
  clock_.AdvanceMs(kMaxSkewMs + 1);
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  ASSERT_TRUE(verifier_.Verify("Heartbeat", req).ok());
  EXPECT_EQ(verifier_.nonce_cache_size(), 1u);
}

TEST_F(NodeAuthTest, FullNonceCacheFailsClosed) {
  NodeVerifier small(kKey, &clock_, 3);
  for (int i = 0; i < 3; ++i) {
    HeartbeatRequest req = MakeHeartbeat();
    signer_.Sign("Heartbeat", &req);
    ASSERT_TRUE(small.Verify("Heartbeat", req).ok());
  }
  HeartbeatRequest req = MakeHeartbeat();
  signer_.Sign("Heartbeat", &req);
  EXPECT_EQ(small.Verify("Heartbeat", req).status().code(), Code::kResourceExhausted);
  clock_.AdvanceMs(kMaxSkewMs + 1);
  signer_.Sign("Heartbeat", &req);
  EXPECT_TRUE(small.Verify("Heartbeat", req).ok());
}

TEST(NodeAuthMacInputTest, FieldBoundariesAreUnambiguous) {
  EXPECT_NE(NodeAuthMacInput("ab", "c", "s", 1, "n"), NodeAuthMacInput("a", "bc", "s", 1, "n"));
  EXPECT_NE(NodeAuthMacInput("m", "b", "s1", 1, "n"), NodeAuthMacInput("m", "b", "s", 11, "n"));
}

}  // namespace
}  // namespace sluice
