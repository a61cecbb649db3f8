#include "rpc/credential.h"

#include <gtest/gtest.h>

#include <set>

namespace sluice {
namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";

TEST(HmacTest, Rfc4231Vector) {
  // RFC 4231 test case 2.
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacSha256("", "x").size(), 32u);
}

TEST(HexTest, RoundTripAndErrors) {
  std::string bytes("\x00\x01\xab\xff", 4);
  EXPECT_EQ(HexEncode(bytes), "0001abff");
  EXPECT_EQ(*HexDecode("0001ABff"), bytes);
  EXPECT_FALSE(HexDecode("abc").ok());
  EXPECT_FALSE(HexDecode("zz").ok());
  EXPECT_TRUE(HexDecode("")->empty());
}

TEST(RandomBytesTest, LengthAndVariety) {
  EXPECT_EQ(RandomBytes(0).size(), 0u);
  EXPECT_EQ(RandomBytes(1000).size(), 1000u);
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(RandomBytes(16));
  EXPECT_EQ(seen.size(), 100u);
}

TEST(CredentialTest, RoundTrip) {
  Credential cred{1234, 5678, 1'000'000};
  std::string token = SignCredential(kKey, cred);
  auto got = VerifyCredential(kKey, token, 999'999);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->uid, 1234u);
  EXPECT_EQ(got->gid, 5678u);
  EXPECT_EQ(got->expires_ms, 1'000'000);
  // Extreme ids survive.
  Credential big{4294967295u, 0, 5};
  auto got2 = VerifyCredential(kKey, SignCredential(kKey, big), 1);
  ASSERT_TRUE(got2.ok());
  EXPECT_EQ(got2->uid, 4294967295u);
}

TEST(CredentialTest, WrongKeyRejected) {
  std::string token = SignCredential(kKey, {1, 1, 100});
  auto got = VerifyCredential(kKey + "x", token, 50);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(got.status().message(), "Invalid credential: bad signature");
}

TEST(CredentialTest, TamperedBodyRejected) {
  std::string token = SignCredential(kKey, {1000, 1000, 100});
  // Claim uid 0 with the original MAC.
  std::string forged = HexEncode("0:1000:100") + token.substr(token.find('.'));
  auto got = VerifyCredential(kKey, forged, 50);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "Invalid credential: bad signature");
  // Flip one hex digit of the body and of the MAC.
  for (size_t pos : {size_t{0}, token.size() - 1}) {
    std::string t = token;
    t[pos] = t[pos] == '0' ? '1' : '0';
    EXPECT_FALSE(VerifyCredential(kKey, t, 50).ok()) << pos;
  }
}

TEST(CredentialTest, ExpiredAndFarFutureRejected) {
  std::string token = SignCredential(kKey, {1, 1, 100});
  EXPECT_TRUE(VerifyCredential(kKey, token, 99).ok());
  EXPECT_EQ(VerifyCredential(kKey, token, 100).status().message(), "Invalid credential: expired");
  EXPECT_FALSE(VerifyCredential(kKey, token, 10'000).ok());
  std::string future = SignCredential(kKey, {1, 1, 100 + kMaxCredentialTtlMs + 1});
  EXPECT_EQ(VerifyCredential(kKey, future, 100).status().message(),
            "Invalid credential: expiry too far in the future");
  EXPECT_TRUE(VerifyCredential(kKey, future, 101).ok());  // exactly the maximum ttl
}

TEST(CredentialTest, MalformedRejectedWithoutCrashing) {
  std::string mac_of_junk = HexEncode(HmacSha256(kKey, std::string("sluice-cred-v1\n") + "1:2"));
  for (std::string bad : {std::string(""), std::string("."), std::string("abc"),
                          std::string("zz.zz"), std::string("31.") + std::string(64, '0'),
                          std::string(10000, 'a') + "." + std::string(64, 'a'),
                          HexEncode("1:2") + "." + mac_of_junk}) {
    auto got = VerifyCredential(kKey, bad, 0);
    ASSERT_FALSE(got.ok()) << bad;
    EXPECT_EQ(got.status().code(), Code::kUnauthenticated);
  }
  // A validly signed body that is not uid:gid:expires is still rejected.
  for (std::string body :
       {"1:2", "1:2:3:4", "-1:2:3", "1:x:3", "01:2:3", "1:2:", "99999999999:1:5"}) {
    std::string token =
        HexEncode(body) + "." + HexEncode(HmacSha256(kKey, std::string("sluice-cred-v1\n") + body));
    auto got = VerifyCredential(kKey, token, 0);
    ASSERT_FALSE(got.ok()) << body;
    EXPECT_EQ(got.status().message(), "Invalid credential: malformed token") << body;
  }
  EXPECT_EQ(VerifyCredential("", SignCredential("", {1, 1, 5}), 0).status().code(),
            Code::kInternal);
}

}  // namespace
}  // namespace sluice
