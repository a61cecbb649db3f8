#include "node_common/hook_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"

namespace sluice {
namespace {

constexpr size_t kKeepBytes = 4096;

[[noreturn]] void ExecChild(const std::string& program, const std::vector<std::string>& env,
                            int out_fd) {
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s = 1; s < NSIG; ++s) ::signal(s, SIG_DFL);
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  for (int fd = 3; fd < 1024; ++fd) ::close(fd);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
  ::execve(program.c_str(), argv, envp.data());
  std::fprintf(stderr, "cannot execute %s: %s\n", program.c_str(), std::strerror(errno));
  ::_exit(127);
}

std::string LastLine(const std::string& out) {
  size_t end = out.size();
  while (end > 0) {
    while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == '\r' || out[end - 1] == ' ' ||
                       out[end - 1] == '\t')) {
      --end;
    }
    size_t begin = out.rfind('\n', end == 0 ? 0 : end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    while (begin < end && (out[begin] == ' ' || out[begin] == '\t')) ++begin;
    if (begin < end) return out.substr(begin, std::min<size_t>(end - begin, 256));
    end = begin == 0 ? 0 : begin - 1;
  }
  return "";
}

}  // namespace

std::string HookResult::Reason(const std::string& what) const {
  if (!last_line.empty() && started && !ok()) return last_line;
  if (!started) return fmt::format("{} failed to start", what);
  if (timed_out) return fmt::format("{} timed out", what);
  if (term_signal != 0) return fmt::format("{} killed by signal {}", what, term_signal);
  return fmt::format("{} failed exit {}", what, exit_code);
}

HookResult RunHook(const std::string& program, const std::vector<std::string>& env,
                   int64_t timeout_ms) {
  HookResult r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.last_line = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.last_line = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) ExecChild(program, env, fds[1]);
  ::close(fds[1]);
  ::setpgid(pid, pid);  // also done by the child; whichever runs first
  r.started = true;
  std::string out;
  int64_t deadline = timeout_ms > 0 ? RealClock::MonotonicMs() + timeout_ms : 0;
  bool eof = false;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    int wait_ms = 50;
    if (deadline > 0) {
      int64_t left = deadline - RealClock::MonotonicMs();
      if (left <= 0) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        r.timed_out = true;
        ::waitpid(pid, &status, 0);
        reaped = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left, 50));
    }
    if (!eof) {
      pollfd p = {fds[0], POLLIN, 0};
      if (::poll(&p, 1, wait_ms) > 0) {
        char buf[1024];
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) {
          out.append(buf, static_cast<size_t>(n));
          if (out.size() > 2 * kKeepBytes) out.erase(0, out.size() - kKeepBytes);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          eof = true;
        }
      }
    } else {
      ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno == ECHILD)) reaped = true;
  }
  // Output written just before exit.
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  char buf[1024];
  ssize_t n;
  while (!r.timed_out && (n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, n);
  ::close(fds[0]);
  ::kill(-pid, SIGKILL);  // leftovers of the group (background children)
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
    r.exit_code = 128 + r.term_signal;
  }
  r.last_line = LastLine(out);
  return r;
}

}  // namespace sluice
