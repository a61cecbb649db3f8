// MUNGE encode/decode against a real private munged (skipped when munged is absent).
#include "rpc/munge_auth.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "rpc/munged_process.h"
#include "rpc/temp_dir.h"

namespace sluice {
namespace {

class MungeAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!MungeSupported()) GTEST_SKIP() << "built without libmunge";
    if (FindMunged().empty()) GTEST_SKIP() << "munged is not installed (apt-get install munge)";
    auto m = StartMunged(dir_.File("munge"));
    ASSERT_TRUE(m.ok()) << m.status().message();
    munged_ = *m;
    started_ = true;
  }
  void TearDown() override {
    if (started_) StopMunged(munged_);
  }
  testing::TempDir dir_;
  MungedPaths munged_;
  bool started_ = false;
};

TEST_F(MungeAuth, DecodeGivesTheEncodersUidAndGid) {
  auto cred = MungeEncode(munged_.socket);
  ASSERT_TRUE(cred.ok()) << cred.status().message();
  EXPECT_EQ(cred->rfind("MUNGE:", 0), 0u);
  auto who = MungeDecode(munged_.socket, *cred);
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->uid, getuid());
  EXPECT_EQ(who->gid, getgid());
}

TEST_F(MungeAuth, ReplayedCredentialIsRejected) {
  auto cred = MungeEncode(munged_.socket);
  ASSERT_TRUE(cred.ok());
  ASSERT_TRUE(MungeDecode(munged_.socket, *cred).ok());
  auto again = MungeDecode(munged_.socket, *cred);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(again.status().message(), "Invalid MUNGE credential: Replayed credential");
}

TEST_F(MungeAuth, GarbageAndTamperedCredentialsAreRejected) {
  auto bad = MungeDecode(munged_.socket, "MUNGE:garbage:");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(bad.status().message().rfind("Invalid MUNGE credential: ", 0), 0u)
      << bad.status().message();
  auto cred = MungeEncode(munged_.socket);
  ASSERT_TRUE(cred.ok());
  std::string t = *cred;
  size_t mid = t.size() / 2;
  t[mid] = t[mid] == 'A' ? 'B' : 'A';
  auto tampered = MungeDecode(munged_.socket, t);
  ASSERT_FALSE(tampered.ok());
  EXPECT_EQ(tampered.status().code(), Code::kUnauthenticated);
  EXPECT_EQ(MungeDecode(munged_.socket, "").status().code(), Code::kUnauthenticated);
  EXPECT_EQ(MungeDecode(munged_.socket, std::string(100000, 'x')).status().message(),
            "Invalid MUNGE credential: too long");
}

TEST_F(MungeAuth, CredentialFromAnotherKeyIsRejected) {
  testing::TempDir other_dir;
  auto other = StartMunged(other_dir.File("munge"));
  ASSERT_TRUE(other.ok()) << other.status().message();
  auto cred = MungeEncode(other->socket);
  StopMunged(*other);
  ASSERT_TRUE(cred.ok());
  auto r = MungeDecode(munged_.socket, *cred);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnauthenticated);
}

TEST_F(MungeAuth, CredentialForAnotherServiceIsRejected) {
  auto cred = MungeEncode(munged_.socket, "some-other-service");
  ASSERT_TRUE(cred.ok());
  EXPECT_EQ(MungeDecode(munged_.socket, *cred).status().message(),
            "Invalid MUNGE credential: not a sluice authentication credential");
}

TEST_F(MungeAuth, EncodeWithoutMungedIsUnavailable) {
  auto r = MungeEncode(dir_.File("no-such.socket"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnavailable);
  EXPECT_EQ(r.status().message().rfind("Munge encode failed: ", 0), 0u) << r.status().message();
}

TEST(MungeAuthInfo, SocketItem) {
  EXPECT_EQ(MungeSocketFromAuthInfo("socket=/run/m.sock"), "/run/m.sock");
  EXPECT_EQ(MungeSocketFromAuthInfo("ttl=60,socket=/x"), "/x");
  EXPECT_EQ(MungeSocketFromAuthInfo("ttl=60"), "");
  EXPECT_EQ(MungeSocketFromAuthInfo(""), "");
  EXPECT_TRUE(AuthTypeIsMunge("auth/munge"));
  EXPECT_FALSE(AuthTypeIsMunge("auth/none"));
}

}  // namespace
}  // namespace sluice
