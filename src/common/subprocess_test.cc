// StartSubprocess / RunSubprocess with /bin/sh as the child.
#include "common/subprocess.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sluice {
namespace {

SubprocessOptions Shell(const std::string& script) {
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", script};
  o.out = Stdio::Pipe();
  o.err = Stdio::Pipe();
  return o;
}

// A cwd is one of the things only the fork() path does (see subprocess.h).
void ForceFork(SubprocessOptions* o) { o->cwd = "/"; }

std::string TempDir() {
  char tmpl[] = "/tmp/subprocess-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl), nullptr);
  return tmpl;
}

TEST(Subprocess, ExitCodeAndBothOutputs) {
  SubprocessResult r = RunSubprocess(Shell("echo out; echo err >&2; exit 3"));
  ASSERT_TRUE(r.started()) << r.error.Message();
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(Subprocess, DeathBySignalIs128PlusTheSignal) {
  SubprocessResult r = RunSubprocess(Shell("kill -TERM $$"));
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(Subprocess, StderrIntoStdout) {
  SubprocessOptions o = Shell("echo one; echo two >&2");
  o.err = Stdio::Stdout();
  SubprocessResult r = RunSubprocess(o);
  EXPECT_EQ(r.out, "one\ntwo\n");
  EXPECT_EQ(r.err, "");
}

TEST(Subprocess, EnvironmentReplacedThenAddedTo) {
  SubprocessOptions o = Shell("env | sort");
  o.env = std::vector<std::string>{"A=1", "B=2"};
  o.env_add = {"B=3", "C=4", "not-a-variable"};
  SubprocessResult r = RunSubprocess(o);
  // sh may add PWD/SHLVL/_ of its own; none of the parent's variables is there.
  EXPECT_NE(r.out.find("A=1\nB=3\nC=4\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("B=2"), std::string::npos);
  EXPECT_EQ(r.out.find("HOME="), std::string::npos) << r.out;
}

TEST(Subprocess, EnvironmentInheritedByDefault) {
  ::setenv("SUBPROCESS_TEST_VAR", "inherited", 1);
  SubprocessResult r = RunSubprocess(Shell("echo $SUBPROCESS_TEST_VAR"));
  EXPECT_EQ(r.out, "inherited\n");
}

TEST(Subprocess, WorkingDirectory) {
  std::string dir = TempDir();
  SubprocessOptions o = Shell("pwd");
  o.cwd = dir;
  EXPECT_EQ(RunSubprocess(o).out, dir + "\n");
  o.cwd = dir + "/missing";
  SubprocessResult r = RunSubprocess(o);
  EXPECT_FALSE(r.started());
  EXPECT_EQ(r.error.step, SpawnStep::kChdir);
  EXPECT_EQ(r.error.error, ENOENT);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, MissingProgramIsENOENTFromExec) {
  SubprocessOptions o;
  o.argv = {"/no/such/program"};
  for (bool fork : {false, true}) {
    if (fork) ForceFork(&o);
    SubprocessResult r = RunSubprocess(o);
    EXPECT_FALSE(r.started());
    EXPECT_TRUE(r.error.in_child());
    EXPECT_EQ(r.error.step, SpawnStep::kExec);
    EXPECT_EQ(r.error.error, ENOENT);
    EXPECT_EQ(r.error.Message(), "execve(): No such file or directory");
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // the failed child was reaped
    EXPECT_EQ(errno, ECHILD);
  }
}

TEST(Subprocess, SearchPathUsesTheChildsPath) {
  std::string dir = TempDir();
  std::ofstream(dir + "/hello-prog") << "#!/bin/sh\necho hello from path\n";
  std::filesystem::permissions(dir + "/hello-prog", std::filesystem::perms::owner_all);
  SubprocessOptions o;
  o.argv = {"hello-prog"};
  o.out = Stdio::Pipe();
  o.search_path = true;
  o.env_add = {"PATH=/nonexistent:" + dir};
  EXPECT_EQ(RunSubprocess(o).out, "hello from path\n");
  o.search_path = false;  // a bare name is then a relative path
  EXPECT_EQ(RunSubprocess(o).error.error, ENOENT);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, TimeoutKillsTheWholeGroup) {
  std::string dir = TempDir();
  SubprocessOptions o = Shell("sleep 30 & echo $! > " + dir + "/bg; echo started; wait");
  o.new_process_group = true;
  o.timeout_ms = 300;
  auto begin = std::chrono::steady_clock::now();
  SubprocessResult r = RunSubprocess(o);
  auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(took, std::chrono::seconds(10));
  pid_t bg = 0;
  std::ifstream(dir + "/bg") >> bg;
  ASSERT_GT(bg, 0);
  for (int i = 0; i < 200 && ::kill(bg, 0) == 0; ++i) ::usleep(10'000);  // init reaps it
  EXPECT_NE(::kill(bg, 0), 0);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, StopAtExitDoesNotWaitForBackgroundChildren) {
  SubprocessOptions o = Shell("sleep 30 & echo done");
  o.new_process_group = true;
  o.stop_at_exit = true;
  o.timeout_ms = 10'000;
  SubprocessResult r = RunSubprocess(o);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "done\n");
  ::kill(-r.pid, SIGKILL);
}

TEST(Subprocess, NewSession) {
  SubprocessOptions o = Shell("ps -o sid= -p $$; echo $$");
  o.new_session = true;
  for (bool fork : {false, true}) {
    if (fork) ForceFork(&o);
    SubprocessResult r = RunSubprocess(o);
    std::istringstream in(r.out);
    pid_t sid = 0, self = 0;
    in >> sid >> self;
    EXPECT_EQ(sid, self) << r.out;
    EXPECT_EQ(self, r.pid);
    EXPECT_NE(sid, ::getsid(0));
  }
}

TEST(Subprocess, NewProcessGroupSetBeforeStartReturns) {
  SubprocessOptions o;
  o.argv = {"/bin/sleep", "5"};
  o.new_process_group = true;
  for (bool fork : {false, true}) {
    if (fork) ForceFork(&o);
    Subprocess c = StartSubprocess(o);
    ASSERT_TRUE(c.started());
    EXPECT_EQ(::getpgid(c.pid), c.pid);
    ::kill(-c.pid, SIGKILL);
    ::waitpid(c.pid, nullptr, 0);
  }
}

TEST(Subprocess, StdinData) {
  SubprocessOptions o = Shell("cat");
  o.in = Stdio::Pipe();
  o.stdin_data = std::string(200'000, 'x');  // more than a pipe holds, both ways
  SubprocessResult r = RunSubprocess(o);
  EXPECT_EQ(r.out, o.stdin_data);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(Subprocess, StdinClosedEarlyIsNoSigpipe) {
  SubprocessOptions o = Shell("exec 0<&-; echo ok");
  o.in = Stdio::Pipe();
  o.stdin_data = std::string(1'000'000, 'x');
  SubprocessResult r = RunSubprocess(o);
  EXPECT_EQ(r.out, "ok\n");
}

TEST(Subprocess, StdinFromNull) {
  SubprocessOptions o = Shell("wc -c");
  o.in = Stdio::Null();
  EXPECT_EQ(RunSubprocess(o).out, "0\n");
}

TEST(Subprocess, AppendFileAndExtraFd) {
  std::string dir = TempDir();
  std::ofstream(dir + "/log") << "before\n";
  for (bool fork : {false, true}) {
    int fds[2];
    ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    SubprocessOptions o;
    o.argv = {"/bin/sh", "-c", "echo appended; echo to-fd3 >&3"};
    o.out = Stdio::AppendFile(dir + "/log");
    o.extra_fds = {{fds[1], 3}};
    o.close_other_fds = fork;
    SubprocessResult r = RunSubprocess(o);
    ::close(fds[1]);
    EXPECT_EQ(r.exit_code, 0);
    char buf[64] = {};
    EXPECT_GT(::read(fds[0], buf, sizeof buf - 1), 0);
    EXPECT_STREQ(buf, "to-fd3\n");
    ::close(fds[0]);
  }
  std::ifstream log(dir + "/log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(text.str(), "before\nappended\nappended\n");
  std::filesystem::remove_all(dir);
}

// From /proc/<pid>/status: {SIGUSR2 blocked, SIGUSR1 ignored}.
std::pair<bool, bool> SignalSets(const std::string& status) {
  auto bit = [&](const std::string& key, int sig) {
    size_t at = status.find(key + ":\t");
    if (at == std::string::npos) return false;
    uint64_t set = std::stoull(status.substr(at + key.size() + 2, 16), nullptr, 16);
    return ((set >> (sig - 1)) & 1) != 0;
  };
  return {bit("SigBlk", SIGUSR2), bit("SigIgn", SIGUSR1)};
}

TEST(Subprocess, SignalsReset) {
  ::signal(SIGUSR1, SIG_IGN);
  sigset_t usr2, old;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  ::pthread_sigmask(SIG_BLOCK, &usr2, &old);
  SubprocessOptions o;  // no shell in between: it might change them
  o.argv = {"/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"};
  o.out = Stdio::Pipe();
  for (bool fork : {false, true}) {
    if (fork) ForceFork(&o);
    o.clear_signal_mask = o.default_signal_handlers = false;
    SubprocessResult inherited = RunSubprocess(o);
    o.clear_signal_mask = o.default_signal_handlers = true;
    SubprocessResult reset = RunSubprocess(o);
    EXPECT_EQ(SignalSets(inherited.out), (std::pair{true, true})) << inherited.out;
    EXPECT_EQ(SignalSets(reset.out), (std::pair{false, false})) << reset.out;
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::signal(SIGUSR1, SIG_DFL);
}

TEST(Subprocess, BeforeExecHookRunsInTheChild) {
  std::string dir = TempDir();
  SubprocessOptions o = Shell("pwd");
  o.before_exec = [&] { return ::chdir(dir.c_str()) == 0 ? 0 : errno; };
  EXPECT_EQ(RunSubprocess(o).out, dir + "\n");
  o.before_exec = [] { return EPERM; };
  SubprocessResult r = RunSubprocess(o);
  EXPECT_EQ(r.error.step, SpawnStep::kBeforeExec);
  EXPECT_EQ(r.error.error, EPERM);
  o.before_exec = []() -> int { ::_exit(7); };  // started: the child is there to reap
  r = RunSubprocess(o);
  EXPECT_TRUE(r.started());
  EXPECT_EQ(r.exit_code, 7);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, RunAsAnotherUserNeedsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  SubprocessOptions o = Shell("id -u; id -g; id -G");
  o.uid = 65534;
  o.gid = 65534;
  SubprocessResult r = RunSubprocess(o);
  EXPECT_EQ(r.out, "65534\n65534\n65534\n");
}

}  // namespace
}  // namespace sluice
