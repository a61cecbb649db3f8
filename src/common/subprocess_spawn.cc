// StartSubprocess: everything is prepared in the parent (see subprocess.h), then either
// posix_spawn carries it out (when it can), or a forked child applies the plan with
// async-signal-safe calls only and execs, or reports the failed step through a
// close-on-exec pipe.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/subprocess.h"

extern char** environ;

namespace sluice {
namespace {

constexpr int kCloseFdsBelow = 1024;

const char* StepName(SpawnStep s) {
  switch (s) {
    case SpawnStep::kNone:
      return "ok";
    case SpawnStep::kPipe:
      return "pipe";
    case SpawnStep::kOpen:
      return "open";
    case SpawnStep::kFork:
      return "fork";
    case SpawnStep::kSession:
      return "setsid";
    case SpawnStep::kDup:
      return "dup2";
    case SpawnStep::kChdir:
      return "chdir";
    case SpawnStep::kSetGroups:
      return "setgroups";
    case SpawnStep::kSetGid:
      return "setgid";
    case SpawnStep::kSetUid:
      return "setuid";
    case SpawnStep::kBeforeExec:
      return "before exec";
    case SpawnStep::kExec:
      return "execve()";
  }
  return "?";
}

std::string NameOf(const std::string& kv) { return kv.substr(0, kv.find('=')); }

std::vector<std::string> ChildEnv(const SubprocessOptions& o) {
  std::vector<std::string> env;
  if (o.env) {
    env = *o.env;
  } else {
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  }
  for (const std::string& kv : o.env_add) {
    if (kv.find('=') == std::string::npos) continue;
    std::erase_if(env, [&](const std::string& e) { return NameOf(e) == NameOf(kv); });
    env.push_back(kv);
  }
  return env;
}

// The paths execve tries, in order: argv[0] itself, or each PATH entry + argv[0].
std::vector<std::string> ExecCandidates(const SubprocessOptions& o,
                                        const std::vector<std::string>& env) {
  const std::string& prog = o.argv[0];
  if (!o.search_path || prog.find('/') != std::string::npos) return {prog};
  std::string path = "/usr/local/bin:/bin:/usr/bin";  // glibc's default without PATH
  for (const std::string& e : env) {
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  std::vector<std::string> out;
  for (size_t begin = 0;;) {
    size_t end = path.find(':', begin);
    std::string dir =
        path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    out.push_back((dir.empty() ? "." : dir) + "/" + prog);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

std::vector<char*> CArray(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// One of the child's fds 0-2: the parent's end (kPipe) and what the child gets.
struct StdioFds {
  int parent = -1;
  int child = -1;      // -1: inherited (or, for stderr with kStdout, fd 1)
  bool owned = false;  // `child` is ours to close in the parent
};

// Everything the child needs, ready before the fork.
struct ChildPlan {
  const SubprocessOptions* opts;
  std::vector<char*> argv, envp;
  std::vector<const char*> candidates;
  StdioFds stdio[3];
  int report_fd = -1;  // write end of the {step, errno} pipe
  sigset_t parent_mask;
};

SpawnError OpenStdio(const Stdio& s, int target, StdioFds* f) {
  switch (s.kind) {
    case Stdio::Kind::kInherit:
    case Stdio::Kind::kStdout:
      return {};
    case Stdio::Kind::kFd:
      f->child = s.fd;
      return {};
    case Stdio::Kind::kNull:
      f->child = ::open("/dev/null", (target == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      break;
    case Stdio::Kind::kAppendFile:
      f->child = ::open(s.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      break;
    case Stdio::Kind::kPipe: {
      int p[2];
      if (::pipe2(p, O_CLOEXEC) != 0) return {SpawnStep::kPipe, errno};
      f->parent = target == 0 ? p[1] : p[0];
      f->child = target == 0 ? p[0] : p[1];
      f->owned = true;
      return {};
    }
  }
  if (f->child < 0) return {SpawnStep::kOpen, errno};
  f->owned = true;
  return {};
}

// fd `from` becomes `to` in the child (also when equal: then only close-on-exec goes).
bool Move(int from, int to) {
  if (from == to) return ::fcntl(to, F_SETFD, 0) == 0;
  return ::dup2(from, to) == to;
}

[[noreturn]] void Report(const ChildPlan& p, SpawnStep step, int error) {
  int msg[2] = {static_cast<int>(step), error};
  ssize_t ignored = ::write(p.report_fd, msg, sizeof msg);
  (void)ignored;
  ::_exit(127);
}

bool IsExtraTarget(const SubprocessOptions& o, int fd) {
  for (const auto& [from, to] : o.extra_fds) {
    if (to == fd) return true;
  }
  return false;
}

[[noreturn]] void RunChild(const ChildPlan& p) {
  const SubprocessOptions& o = *p.opts;
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    struct sigaction sa;
    if (::sigaction(s, nullptr, &sa) != 0) continue;  // glibc's reserved signals
    bool ignored = !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN;
    bool caught =
        (sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
    if (caught || (ignored && o.default_signal_handlers)) ::signal(s, SIG_DFL);
  }
  if (o.new_session) {
    if (::setsid() < 0) Report(p, SpawnStep::kSession, errno);
  } else if (o.new_process_group) {
    ::setpgid(0, 0);
  }
  for (int target = 0; target < 3; ++target) {
    int from = p.stdio[target].child;
    if (target == 2 && o.err.kind == Stdio::Kind::kStdout) from = STDOUT_FILENO;
    if (from >= 0 && !Move(from, target)) Report(p, SpawnStep::kDup, errno);
  }
  for (const auto& [from, to] : o.extra_fds) {
    if (!Move(from, to)) Report(p, SpawnStep::kDup, errno);
  }
  if (o.close_other_fds) {
    for (int fd = 3; fd < kCloseFdsBelow; ++fd) {
      if (fd != p.report_fd && !IsExtraTarget(o, fd)) ::close(fd);
    }
  }
  if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) Report(p, SpawnStep::kChdir, errno);
  if (o.gid) {
    (void)::setgroups(0, nullptr);
    if (::setgid(*o.gid) != 0) Report(p, SpawnStep::kSetGid, errno);
  }
  if (o.uid && ::setuid(*o.uid) != 0) Report(p, SpawnStep::kSetUid, errno);
  if (o.before_exec) {
    if (int e = o.before_exec(); e != 0) Report(p, SpawnStep::kBeforeExec, e);
  }
  sigset_t mask = p.parent_mask;
  if (o.clear_signal_mask) sigemptyset(&mask);
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  // As execvp: a missing candidate lets the next one try; EACCES is kept if none runs.
  int error = ENOENT;
  bool denied = false;
  for (const char* path : p.candidates) {
    ::execve(path, p.argv.data(), p.envp.data());
    error = errno;
    if (error == EACCES) denied = true;
    if (error != ENOENT && error != ENOTDIR && error != EACCES) break;
  }
  if (denied && (error == ENOENT || error == ENOTDIR)) error = EACCES;
  Report(p, SpawnStep::kExec, error);
}

// posix_spawn (glibc: a vfork-like clone, so no copy of the parent's page tables and no
// atfork handlers: cheap in a big multi-threaded daemon) can do everything but the
// ids, the cwd, the hook, closing other fds and the PATH search.
bool PosixSpawnCan(const SubprocessOptions& o, const ChildPlan& p) {
  return !o.uid && !o.gid && o.cwd.empty() && !o.before_exec && !o.close_other_fds &&
         p.candidates.size() == 1;
}

// Its failures, whether of a file action or of the exec, all count as SpawnStep::kExec.
SpawnError PosixSpawn(const ChildPlan& p, pid_t* pid) {
  const SubprocessOptions& o = *p.opts;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int target = 0; target < 3; ++target) {
    int from = p.stdio[target].child;
    if (target == 2 && o.err.kind == Stdio::Kind::kStdout) from = STDOUT_FILENO;
    if (from >= 0) posix_spawn_file_actions_adddup2(&fa, from, target);
  }
  for (const auto& [from, to] : o.extra_fds) posix_spawn_file_actions_adddup2(&fa, from, to);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = o.new_session         ? POSIX_SPAWN_SETSID
                : o.new_process_group ? POSIX_SPAWN_SETPGROUP
                                      : 0;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  if (o.clear_signal_mask) {
    flags |= POSIX_SPAWN_SETSIGMASK;
    posix_spawnattr_setsigmask(&attr, &none);
  }
  if (o.default_signal_handlers) {
    flags |= POSIX_SPAWN_SETSIGDEF;
    posix_spawnattr_setsigdefault(&attr, &all);
  }
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, flags);
  int rc = ::posix_spawn(pid, p.candidates[0], &fa, &attr, p.argv.data(), p.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return {SpawnStep::kExec, rc};
  return {};
}

// The child's report: {kNone, 0} when it exec'd (the pipe closed without a word).
SpawnError ReadReport(int fd) {
  int msg[2];
  size_t got = 0;
  while (got < sizeof msg) {
    ssize_t n = ::read(fd, reinterpret_cast<char*>(msg) + got, sizeof msg - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof msg) return {};
  return {static_cast<SpawnStep>(msg[0]), msg[1]};
}

}  // namespace

std::string SpawnError::Message() const {
  return std::string(StepName(step)) + ": " + std::strerror(error);
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

Subprocess StartSubprocess(const SubprocessOptions& opts) {
  Subprocess result;
  if (opts.argv.empty()) {
    result.error = {SpawnStep::kExec, EINVAL};
    return result;
  }
  ChildPlan plan;
  plan.opts = &opts;
  std::vector<std::string> argv = opts.argv, env = ChildEnv(opts);
  std::vector<std::string> candidates = ExecCandidates(opts, env);
  plan.argv = CArray(argv);
  plan.envp = CArray(env);
  for (const std::string& c : candidates) plan.candidates.push_back(c.c_str());

  auto cleanup = [&](SpawnError e) {
    for (StdioFds& f : plan.stdio) {
      CloseFd(f.parent);
      if (f.owned) CloseFd(f.child);
    }
    CloseFd(plan.report_fd);
    result.error = e;
    return result;
  };
  auto started = [&](pid_t pid) {
    result.pid = pid;
    result.stdin_fd = plan.stdio[0].parent;
    result.stdout_fd = plan.stdio[1].parent;
    result.stderr_fd = plan.stdio[2].parent;
    return result;
  };
  const Stdio* stdio[3] = {&opts.in, &opts.out, &opts.err};
  for (int i = 0; i < 3; ++i) {
    if (SpawnError e = OpenStdio(*stdio[i], i, &plan.stdio[i]); !e.ok()) return cleanup(e);
  }
  if (PosixSpawnCan(opts, plan)) {
    SpawnError e = PosixSpawn(plan, &result.pid);
    for (StdioFds& f : plan.stdio) {
      if (f.owned) CloseFd(f.child);
    }
    return e.ok() ? started(result.pid) : cleanup(e);
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return cleanup({SpawnStep::kPipe, errno});
  plan.report_fd = report[1];
  // Above every fd the child sets up, so that none of them replaces it.
  int highest = 2;
  for (const auto& [from, to] : opts.extra_fds) highest = std::max(highest, to);
  if (plan.report_fd <= highest) {
    int moved = ::fcntl(plan.report_fd, F_DUPFD_CLOEXEC, highest + 1);
    ::close(plan.report_fd);
    plan.report_fd = moved;
    if (moved < 0) {
      ::close(report[0]);
      return cleanup({SpawnStep::kPipe, errno});
    }
  }

  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &plan.parent_mask);
  pid_t pid = ::fork();
  if (pid == 0) RunChild(plan);
  int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &plan.parent_mask, nullptr);
  for (StdioFds& f : plan.stdio) {
    if (f.owned) CloseFd(f.child);
  }
  CloseFd(plan.report_fd);
  if (pid < 0) {
    ::close(report[0]);
    return cleanup({SpawnStep::kFork, fork_errno});
  }
  SpawnError child_error = ReadReport(report[0]);
  ::close(report[0]);
  if (!child_error.ok()) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return cleanup(child_error);
  }
  return started(pid);
}

}  // namespace sluice
