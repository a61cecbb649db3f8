#include "ctld/services/jwt.h"

#include <gtest/gtest.h>
#include <jwt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ctld/services/token_verifier.h"
#include "rpc/credential.h"

namespace sluice::ctld {
namespace {

const std::string kKey(32, 'k');
constexpr int64_t kNow = 1'700'000'000;

// A token with the given claims, signed with `key` by libjwt directly (not SignJwt).
std::string RawToken(const std::string& key, const std::string& user_claim, const std::string& user,
                     int64_t exp, jwt_alg_t alg = JWT_ALG_HS256) {
  jwt_t* j = nullptr;
  EXPECT_EQ(jwt_new(&j), 0);
  EXPECT_EQ(jwt_set_alg(j, alg, alg == JWT_ALG_NONE ? nullptr : (const unsigned char*)key.data(),
                        alg == JWT_ALG_NONE ? 0 : static_cast<int>(key.size())),
            0);
  jwt_add_grant_int(j, "exp", exp);
  if (!user.empty()) jwt_add_grant(j, user_claim.c_str(), user.c_str());
  char* s = jwt_encode_str(j);
  std::string out(s ? s : "");
  free(s);
  jwt_free(j);
  return out;
}

TEST(Jwt, SignedTokenCarriesSlurmsClaims) {
  auto token = SignJwt(kKey, "alice", kNow, 1800);
  ASSERT_TRUE(token.ok());
  EXPECT_TRUE(LooksLikeJwt(*token));
  auto claims = VerifyJwt(kKey, *token, kNow + 10);
  ASSERT_TRUE(claims.ok()) << claims.status().message();
  EXPECT_EQ(claims->username, "alice");
  EXPECT_EQ(claims->issued_s, kNow);
  EXPECT_EQ(claims->expires_s, kNow + 1800);
}

TEST(Jwt, RefusesExpiredForgedTamperedAndUnsigned) {
  std::string token = *SignJwt(kKey, "alice", kNow, 60);
  auto expired = VerifyJwt(kKey, token, kNow + 61);
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(expired.status().message(), "Invalid JWT: token expired");

  EXPECT_FALSE(VerifyJwt(std::string(32, 'x'), token, kNow).ok());  // another key
  std::string forged = *SignJwt(std::string(32, 'x'), "root", kNow, 60);
  EXPECT_FALSE(VerifyJwt(kKey, forged, kNow).ok());

  // The payload of root's token with alice's signature.
  std::string root = *SignJwt(kKey, "root", kNow, 60);
  std::string spliced = root.substr(0, root.rfind('.')) + token.substr(token.rfind('.'));
  EXPECT_FALSE(VerifyJwt(kKey, spliced, kNow).ok());

  std::string none = RawToken("", "sun", "root", kNow + 60, JWT_ALG_NONE);
  EXPECT_FALSE(VerifyJwt(kKey, none, kNow).ok());
  EXPECT_FALSE(VerifyJwt(kKey, none + "AAAA", kNow).ok());

  EXPECT_FALSE(VerifyJwt(kKey, "not-a-token", kNow).ok());
  EXPECT_FALSE(VerifyJwt(kKey, "", kNow).ok());
}

TEST(Jwt, UsernameClaimWhenSunIsAbsentAndNoneIsRefused) {
  auto c = VerifyJwt(kKey, RawToken(kKey, "username", "bob", kNow + 60), kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->username, "bob");
  auto nobody = VerifyJwt(kKey, RawToken(kKey, "sun", "", kNow + 60), kNow);
  ASSERT_FALSE(nobody.ok());
  EXPECT_EQ(nobody.status().message(), "Invalid JWT: no user name claim");
}

TEST(Jwt, LooksLikeJwtOnlyForThreeBase64UrlParts) {
  EXPECT_TRUE(LooksLikeJwt("eyJh.eyJi.c2ln"));
  EXPECT_FALSE(LooksLikeJwt("eyJh.eyJi."));
  EXPECT_FALSE(LooksLikeJwt(".eyJi.c2ln"));
  EXPECT_FALSE(LooksLikeJwt("eyJh.eyJi.c2ln.x"));
  EXPECT_FALSE(LooksLikeJwt("eyJh.ey Ji.c2ln"));
  EXPECT_FALSE(LooksLikeJwt(SignCredential(kKey, Credential{1, 1, 5})));
}

TEST(Jwt, KeyFileMustBePrivateAndLongEnough) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sluice-jwt-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir / "jwt_hs256.key";
  std::ofstream(path, std::ios::binary) << std::string(32, '\0') + "tail";
  chmod(path.c_str(), 0644);
  auto open = LoadJwtKey(path);
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().code(), Code::kPermissionDenied);
  chmod(path.c_str(), 0600);
  auto key = LoadJwtKey(path);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(key->size(), 36u);  // raw bytes, NULs included, nothing trimmed
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "short";
  EXPECT_EQ(LoadJwtKey(path).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(LoadJwtKey((dir / "missing").string()).status().code(), Code::kNotFound);
  std::filesystem::remove_all(dir);
}

TEST(Jwt, AuthAltSettingsAsSlurmSpellsThem) {
  auto off = ParseAuthAlt("", "");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->enabled);
  auto on = ParseAuthAlt(
      "auth/jwt", "jwt_key=/etc/slurm/jwt.key, max_token_lifespan=3600,disable_token_creation");
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_TRUE(on->enabled);
  EXPECT_EQ(on->key_path, "/etc/slurm/jwt.key");
  EXPECT_EQ(on->max_lifespan_s, 3600);
  EXPECT_TRUE(on->creation_disabled);
  EXPECT_EQ(ParseAuthAlt("auth/jwt", "")->key_path, "");
  EXPECT_EQ(ParseAuthAlt("auth/munge", "").status().message(),
            "AuthAltTypes: auth/munge is not supported (only auth/jwt)");
  EXPECT_FALSE(ParseAuthAlt("auth/jwt", "max_token_lifespan=abc").ok());
  EXPECT_FALSE(ParseAuthAlt("auth/jwt", "max_token_lifespan=0").ok());
  EXPECT_EQ(ParseAuthAlt("auth/jwt", "jwks=/x").status().message(),
            "AuthAltParameters: unknown option jwks=/x");
}

// ---- TokenVerifier: which user a token makes the caller ----

class TokenVerifierTest : public ::testing::Test {
 protected:
  ManualClock clock_{kNow};
  TokenVerifier verifier_{std::string(32, 'c'), &clock_, /*service_uid=*/0};
  uint32_t nobody_ = LookUpUser("nobody")->uid;
};

TEST_F(TokenVerifierTest, SluiceCredentialWorksWithOrWithoutJwt) {
  std::string cred = SignCredential(std::string(32, 'c'), Credential{77, 78, kNow * 1000 + 60'000});
  auto caller = verifier_.Verify(cred);
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->uid, 77u);
  EXPECT_EQ(caller->gid, 78u);
  verifier_.EnableJwt(kKey);
  EXPECT_EQ(verifier_.Verify(cred)->uid, 77u);
  EXPECT_FALSE(verifier_.Verify("garbage").ok());
}

TEST_F(TokenVerifierTest, JwtOnlyWhenEnabledAndItsUserFromPasswd) {
  std::string token = *SignJwt(kKey, "nobody", kNow, 60);
  EXPECT_FALSE(verifier_.Verify(token).ok());  // auth/jwt off: not a credential
  verifier_.EnableJwt(kKey);
  auto caller = verifier_.Verify(token);
  ASSERT_TRUE(caller.ok()) << caller.status().message();
  EXPECT_EQ(caller->uid, nobody_);
  EXPECT_EQ(verifier_.Verify(token, "nobody")->uid, nobody_);  // redundant user name
  auto ghost = verifier_.Verify(*SignJwt(kKey, "no-such-user-xyz", kNow, 60));
  ASSERT_FALSE(ghost.ok());
  EXPECT_EQ(ghost.status().message(), "Invalid JWT: unknown user no-such-user-xyz");
  clock_.Advance(61);
  EXPECT_EQ(verifier_.Verify(token).status().message(), "Invalid JWT: token expired");
}

TEST_F(TokenVerifierTest, OnlyRootOrTheServiceUserMayActForAnother) {
  verifier_.EnableJwt(kKey);
  auto proxied = verifier_.Verify(*SignJwt(kKey, "root", kNow, 60), "nobody");
  ASSERT_TRUE(proxied.ok());
  EXPECT_EQ(proxied->uid, nobody_);
  auto refused = verifier_.Verify(*SignJwt(kKey, "nobody", kNow, 60), "root");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(refused.status().message(), "Invalid JWT: token of nobody used for user root");
  // The same rule for a Sluice credential carrying a user name.
  std::string cred =
      SignCredential(std::string(32, 'c'), Credential{nobody_, nobody_, kNow * 1000 + 60'000});
  EXPECT_FALSE(verifier_.Verify(cred, "root").ok());
  std::string root_cred =
      SignCredential(std::string(32, 'c'), Credential{0, 0, kNow * 1000 + 60'000});
  EXPECT_EQ(verifier_.Verify(root_cred, "nobody")->uid, nobody_);
}

}  // namespace
}  // namespace sluice::ctld
