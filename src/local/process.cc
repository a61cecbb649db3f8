#include "local/process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <grp.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/clock.h"

extern char** environ;

namespace sluice {
namespace {

std::vector<char*> CArgv(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void ExportAll(const std::vector<std::string>& env) {
  for (const auto& kv : env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
}

// Waits for `pid` up to timeout_ms; returns raw wait status or nullopt on timeout.
std::optional<int> WaitWithTimeout(pid_t pid, int timeout_ms) {
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  int sleep_us = 200;
  while (true) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return st;
    if (r < 0 && errno != EINTR) return std::nullopt;
    if (RealClock::MonotonicMs() > deadline) return std::nullopt;
    usleep(sleep_us);
    if (sleep_us < 20'000) sleep_us *= 2;
  }
}

int DecodeStatus(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

}  // namespace

Expected<pid_t> SpawnDetached(const std::vector<std::string>& argv, const std::string& log_path,
                              const std::vector<std::string>& extra_env) {
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return Internal("cannot open " + log_path + ": " + strerror(errno));
  auto args = CArgv(argv);
  pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Internal(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    setsid();
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    ExportAll(extra_env);
    execv(args[0], args.data());
    _exit(127);
  }
  close(log_fd);
  return pid;
}

RunResult RunCommand(const std::vector<std::string>& argv, const RunOptions& opts) {
  RunResult res;
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC)) {
    res.err = "pipe failed";
    return res;
  }
  auto args = CArgv(argv);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    setpgid(0, 0);
    ExportAll(opts.extra_env);
    if (!opts.cwd.empty() && chdir(opts.cwd.c_str()) != 0) _exit(126);
    if (opts.gid) {
      setgroups(0, nullptr);
      if (setgid(*opts.gid) != 0) _exit(126);
    }
    if (opts.uid && setuid(*opts.uid) != 0) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (!opts.stdin_data.empty()) {
    (void)!write(in_pipe[1], opts.stdin_data.data(), opts.stdin_data.size());
  }
  close(in_pipe[1]);
  // Drain both pipes until EOF (or timeout).
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&res.out, &res.err};
  int open_fds = 2;
  int64_t deadline = RealClock::MonotonicMs() + opts.timeout_ms;
  bool timed_out = false;
  while (open_fds > 0) {
    int left = static_cast<int>(deadline - RealClock::MonotonicMs());
    if (left <= 0) {
      timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, left) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, n);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  auto st = WaitWithTimeout(pid, timed_out ? 5000 : opts.timeout_ms);
  if (!st) {
    kill(-pid, SIGKILL);
    st = WaitWithTimeout(pid, 5000);
  }
  res.exit_code = timed_out ? 124 : (st ? DecodeStatus(*st) : -1);
  return res;
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  int st;
  if (waitpid(pid, &st, WNOHANG) == pid) return false;  // our child, now reaped
  return kill(pid, 0) == 0;
}

void StopProcess(pid_t pid, int sig, int grace_ms) {
  if (!ProcessAlive(pid)) return;
  kill(pid, sig);
  int64_t deadline = RealClock::MonotonicMs() + grace_ms;
  while (ProcessAlive(pid) && RealClock::MonotonicMs() < deadline) usleep(10'000);
  if (ProcessAlive(pid)) {
    kill(pid, SIGKILL);
    while (ProcessAlive(pid)) usleep(5'000);
  }
}

Expected<int> FreeTcpPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Internal("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return Internal("bind failed");
  }
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

}  // namespace sluice
