#include "cli/multi_prog.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

namespace sluice {
namespace {

// Runs the script as task `rank` and returns what it printed.
std::string RunAs(const std::string& script, int rank) {
  std::string cmd = "SLURM_PROCID=" + std::to_string(rank) + " /bin/sh -c '";
  std::string quoted;
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  cmd += quoted + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(MultiProg, RanksOffsetsQuotesCommentsAndContinuations) {
  const std::string file =
      "# ranks  program\n"
      "1-2   echo task:%t:offset:%o\n"
      "0,3   echo aaaa \\\n"
      "task:%t:offset:%o 'two  words' \"it's\" # trailing comment\n";
  Expected<std::string> s = MultiProgScript(file, "mp.conf", 4);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(RunAs(*s, 0), "aaaa task:0:offset:0 two  words it's\n");
  EXPECT_EQ(RunAs(*s, 1), "task:1:offset:0\n");
  EXPECT_EQ(RunAs(*s, 2), "task:2:offset:1\n");
  EXPECT_EQ(RunAs(*s, 3), "aaaa task:3:offset:1 two  words it's\n");
}

TEST(MultiProg, StarTakesTheRanksNoOtherLineNames) {
  Expected<std::string> s = MultiProgScript("0 echo first\n* echo rest %t %o\n", "f", 3);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(RunAs(*s, 0), "first\n");
  EXPECT_EQ(RunAs(*s, 2), "rest 2 1\n");
  Expected<std::string> unknown = MultiProgScript("* echo any %t\n", "f", 0);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(RunAs(*unknown, 7), "any 7\n");
}

TEST(MultiProg, InvalidFilesAreRefusedWithSlurmsMessage) {
  for (const char* bad : {"0-2 hostname\n",  // rank 3 of 4 has no program
                          "0-4 hostname\n",  // rank 4 is beyond the step
                          "0-3\n",           // no program
                          "x hostname\n",    // not a rank list
                          "3-1 hostname\n",  // backwards range
                          "0-3 echo 'unterminated\n"}) {
    Expected<std::string> s = MultiProgScript(bad, "/tmp/f", 4);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().message(), "Configuration file /tmp/f invalid") << bad;
  }
  // Task count not known yet: a rank no line names fails when it runs.
  Expected<std::string> s = MultiProgScript("0 true\n", "f", 0);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(RunAs(*s, 1), "srun: error: Configuration file f names no program for task 1\n");
}

}  // namespace
}  // namespace sluice
