#include "common/pid_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace sluice {
namespace {

std::string TempPath() {
  char tmpl[] = "/tmp/pid-lock-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl), nullptr);
  return std::string(tmpl) + "/sluiced.lock";
}

TEST(PidLock, OneHolderAtATimeNamedByItsPid) {
  const std::string path = TempPath();
  EXPECT_EQ(PidLock::Holder(path), 0);  // no file
  {
    auto lock = PidLock::Acquire(path);
    ASSERT_TRUE(lock.ok()) << lock.status().message();
    EXPECT_EQ(PidLock::Holder(path), getpid());
    auto second = PidLock::Acquire(path);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kFailedPrecondition);
    EXPECT_EQ(second.status().message(), path + " is held by pid " + std::to_string(getpid()));
    // Another process (a second agent) cannot take it either.
    pid_t child = fork();
    if (child == 0) _exit(PidLock::Acquire(path).ok() ? 1 : 0);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_EQ(PidLock::Holder(path), 0);  // released with its holder; the stale file is harmless
  auto again = PidLock::Acquire(path);
  EXPECT_TRUE(again.ok());
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

}  // namespace
}  // namespace sluice
