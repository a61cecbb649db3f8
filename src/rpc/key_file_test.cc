#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>
#include <vector>

#include "rpc/credential.h"
#include "rpc/temp_dir.h"

namespace sluice {
namespace {

using testing::TempDir;

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

TEST(KeyFileTest, CreatesPrivateKeyAndRereadsSame) {
  TempDir dir;
  std::string path = dir.File("cluster.key");
  auto key = LoadClusterKey(path, true);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(key->size(), 64u);  // 32 bytes as hex
  EXPECT_TRUE(HexDecode(*key).ok());
  EXPECT_EQ(ModeOf(path), 0600u);
  auto again = LoadClusterKey(path, false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *key);
  // No temp files left behind.
  int files = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.exists();
  EXPECT_EQ(files, 1);
}

TEST(KeyFileTest, ConcurrentCreatorsAgree) {
  TempDir dir;
  std::string path = dir.File("k");
  std::vector<std::string> keys(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto k = LoadClusterKey(path, true);
      keys[i] = k.ok() ? *k : "error: " + k.status().message();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& k : keys) EXPECT_EQ(k, keys[0]);
  EXPECT_EQ(keys[0].size(), 64u);
}

TEST(KeyFileTest, MissingWithoutCreate) {
  TempDir dir;
  auto key = LoadClusterKey(dir.File("nope"), false);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), Code::kNotFound);
  EXPECT_NE(key.status().message().find("does not exist"), std::string::npos);
}

TEST(KeyFileTest, GroupOrWorldAccessibleRefused) {
  TempDir dir;
  std::string path = dir.File("k");
  for (mode_t mode : {0644, 0640, 0604, 0620, 0602}) {
    WriteFile(path, std::string(64, 'a'), mode);
    auto key = LoadClusterKey(path, true);
    ASSERT_FALSE(key.ok()) << std::oct << mode;
    EXPECT_EQ(key.status().code(), Code::kPermissionDenied);
    EXPECT_NE(key.status().message().find("must not be readable or writable by group or others"),
              std::string::npos)
        << key.status().message();
  }
  WriteFile(path, std::string(64, 'a') + "\n", 0400);
  auto key = LoadClusterKey(path, false);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(*key, std::string(64, 'a'));
}

TEST(KeyFileTest, TooShortOrNotRegularRefused) {
  TempDir dir;
  std::string path = dir.File("k");
  WriteFile(path, "short\n", 0600);
  auto key = LoadClusterKey(path, false);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("too short"), std::string::npos);
  WriteFile(path, std::string(5000, 'a'), 0600);
  EXPECT_NE(LoadClusterKey(path, false).status().message().find("too large"), std::string::npos);
  auto dir_key = LoadClusterKey(dir.path(), false);
  ASSERT_FALSE(dir_key.ok());
  EXPECT_NE(dir_key.status().message().find("not a regular file"), std::string::npos);
}

TEST(KeyFileTest, UnwritableDirectoryIsAClearError) {
  auto key = LoadClusterKey("/nonexistent-dir-sluice/k", true);
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("Unable to create cluster key file"), std::string::npos);
}

TEST(KeyFileTest, RootRefusesAKeyFileOwnedBySomeoneElse) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  TempDir dir;
  std::string path = dir.File("k");
  WriteFile(path, std::string(64, 'a') + "\n", 0600);
  ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  auto key = LoadClusterKey(path, false);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().code(), Code::kPermissionDenied);
  EXPECT_EQ(key.status().message(),
            "Cluster key file " + path +
                " is owned by uid 65534: a daemon running as root only trusts a key file "
                "owned by root (run: chown root " +
                path + ")");
  ASSERT_EQ(chown(path.c_str(), 0, 0), 0);
  EXPECT_TRUE(LoadClusterKey(path, false).ok());
}

}  // namespace
}  // namespace sluice
