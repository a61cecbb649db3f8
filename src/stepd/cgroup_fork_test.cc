#include "stepd/cgroup_fork.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace sluice {
namespace {

// True when /proc/self/cgroup names a cgroup ending in `leaf`.
bool InCgroup(const std::string& leaf) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    if (line.size() >= leaf.size() &&
        line.compare(line.size() - leaf.size(), leaf.size(), leaf) == 0) {
      return true;
    }
  }
  return false;
}

// The child is in the cgroup before it runs anything, on every hierarchy this host has:
// cgroup v2 (clone3 into the cgroup) and v1 (fork, then the child writes itself to `tasks`).
TEST(ForkInto, ChildStartsInTheCgroup) {
  int tried = 0;
  for (std::string root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/memory"}) {
    std::string leaf = "/sluice-forkinto-" + std::to_string(getpid());
    std::string dir = root + leaf;
    if (access((root + "/cgroup.procs").c_str(), W_OK) != 0 || mkdir(dir.c_str(), 0755) != 0)
      continue;
    ++tried;
    pid_t pid = ForkInto(dir);
    if (pid == 0) _exit(InCgroup(leaf) ? 0 : 1);
    ASSERT_GT(pid, 0);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child not in " << dir;
    EXPECT_EQ(rmdir(dir.c_str()), 0) << dir;
  }
  if (tried == 0) GTEST_SKIP() << "no writable cgroup hierarchy";
}

TEST(ForkInto, NoCgroupIsAPlainFork) {
  pid_t pid = ForkInto("");
  if (pid == 0) _exit(7);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  EXPECT_EQ(WEXITSTATUS(st), 7);
}

}  // namespace
}  // namespace sluice
