#include "stepd/task_scripts.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sluice {
namespace {

TEST(TaskScripts, PrologOutputExportsUnsetsAndPrints) {
  std::vector<std::string> env = {"PATH=/bin", "DISPLAY=:0", "TEST=old"};
  std::string printed;
  ApplyTaskPrologOutput(
      "print HEADER\nexport TEST=prolog_qa\nunset DISPLAY\nnoise line\nexport =bad\n"
      "export NEW=a=b\nprint two words\n",
      &env, &printed);
  EXPECT_EQ(printed, "HEADER\ntwo words\n");
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "TEST=prolog_qa", "NEW=a=b"}));
}

UserIds Me() { return UserIds{::getuid(), ::getgid(), "", {}}; }

TEST(TaskScripts, EpilogRunsInItsOwnGroupInTheWorkDirWithTheTasksEnvironment) {
  char tmpl[] = "/tmp/task-epilog-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::ofstream(dir + "/epilog")
      << "#!/bin/sh\necho \"$TASK_VAR $(pwd) $(ps -o pgid= -p $$)\" > out\n";
  std::filesystem::permissions(dir + "/epilog", std::filesystem::perms::owner_all);
  Expected<pid_t> pid =
      StartTaskEpilog(dir + "/epilog", {"TASK_VAR=x", "PATH=/bin:/usr/bin"}, dir, Me());
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  int status = 0;
  ASSERT_EQ(::waitpid(*pid, &status, 0), *pid);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(dir + "/out");
  std::string var, cwd;
  pid_t pgid = 0;
  in >> var >> cwd >> pgid;
  EXPECT_EQ(var, "x");
  EXPECT_EQ(cwd, dir);
  EXPECT_EQ(pgid, *pid);
  std::filesystem::remove_all(dir);
}

TEST(TaskScripts, EpilogThatCannotRunIsAnError) {
  Expected<pid_t> pid = StartTaskEpilog("/no/such/epilog", {}, "/tmp", Me());
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().message(), "execve(): /no/such/epilog: No such file or directory");
}

}  // namespace
}  // namespace sluice
