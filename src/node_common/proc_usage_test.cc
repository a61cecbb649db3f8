#include "node_common/proc_usage.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace sluice {
namespace {

TEST(ProcUsage, ParsesAStatLineWhoseNameHasSpacesAndParens) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime prio nice threads itreal start vsize rss
  const std::string line =
      "4242 (a (b) c) S 1 4241 4240 0 -1 4194560 100 0 7 0 250 50 100 100 20 0 1 0 999 "
      "104857600 2560 18446744073709551615";
  pid_t group = 0;
  ProcessUsage u;
  ASSERT_TRUE(ParseProcStat(line, 100, 4, &group, &u));
  EXPECT_EQ(group, 4241);
  EXPECT_EQ(u.pages, 7);
  EXPECT_EQ(u.cpu_ms, 5000);  // (250 + 50 + 100 + 100) ticks at 100/s
  EXPECT_EQ(u.vsize_kb, 102400);
  EXPECT_EQ(u.rss_kb, 10240);
  EXPECT_FALSE(ParseProcStat("garbage", 100, 4, &group, &u));
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2", 100, 4, &group, &u));
}

// A child leading its own process group that touches 64 MiB: its group's RSS counts it, and a
// group that is not asked for is absent.
TEST(ProcUsage, SumsTheProcessesOfAGroup) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setsid();
    std::vector<char> mem(64 << 20);
    std::memset(mem.data(), 1, mem.size());
    char c = 1;
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  auto got = SampleProcessGroups({child});
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(got.count(child), 1u);
  EXPECT_GE(got[child].rss_kb, 60 * 1024);
  EXPECT_GE(got[child].vsize_kb, got[child].rss_kb);
  EXPECT_EQ(got[child].pids, std::vector<pid_t>{child});
  EXPECT_EQ(SampleProcessGroups({child}).count(child), 0u);  // gone
}

}  // namespace
}  // namespace sluice
