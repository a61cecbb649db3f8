// RunSubprocess: starts the child, writes its stdin data, reads its output pipes and
// reaps it, with a deadline after which the child (and its group) is killed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "common/clock.h"
#include "common/subprocess.h"

namespace sluice {
namespace {

// How often a child that left its pipes to background children is checked for exit.
constexpr int kExitCheckMs = 50;
constexpr int kMaxSleepUs = 20'000;

// write() without dying of SIGPIPE when the child closed its stdin (EPIPE instead).
ssize_t WriteNoSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE);
  ssize_t n = ::write(fd, data, size);
  int error = errno;
  if (n < 0 && error == EPIPE && !was_pending) {
    timespec zero{};
    ::sigtimedwait(&pipe_only, nullptr, &zero);
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = error;
  return n;
}

// The parent's pipes to one child and what goes through them.
class PipeSet {
 public:
  PipeSet(const Subprocess& c, const SubprocessOptions& o, SubprocessResult* r)
      : keep_(o.keep_tail_bytes), input_(&o.stdin_data) {
    fds_[0] = c.stdin_fd;
    fds_[1] = c.stdout_fd;
    fds_[2] = c.stderr_fd;
    sinks_[1] = &r->out;
    sinks_[2] = &r->err;
    for (int fd : fds_) {
      if (fd >= 0) ::fcntl(fd, F_SETFL, O_NONBLOCK);
    }
    if (fds_[0] >= 0 && input_->empty()) Close(0);
  }
  ~PipeSet() {
    for (int i = 0; i < 3; ++i) Close(i);
  }

  bool open() const { return fds_[0] >= 0 || fds_[1] >= 0 || fds_[2] >= 0; }

  // Waits up to `wait_ms` (-1: no limit) for the pipes, then moves what it can.
  void Pump(int wait_ms) {
    pollfd p[3];
    for (int i = 0; i < 3; ++i) p[i] = {fds_[i], static_cast<short>(i == 0 ? POLLOUT : POLLIN), 0};
    if (::poll(p, 3, wait_ms) <= 0) return;
    if (p[0].revents != 0) Feed();
    for (int i = 1; i < 3; ++i) {
      if (p[i].revents != 0) Drain(i);
    }
  }

  // Reads whatever the output pipes hold now (the child has exited).
  void DrainAll() {
    for (int i = 1; i < 3; ++i) Drain(i);
  }

 private:
  void Close(int i) {
    if (fds_[i] >= 0) ::close(fds_[i]);
    fds_[i] = -1;
  }

  void Feed() {
    ssize_t n = WriteNoSigpipe(fds_[0], input_->data() + written_, input_->size() - written_);
    if (n > 0) written_ += static_cast<size_t>(n);
    if ((n < 0 && errno != EAGAIN && errno != EINTR) || written_ == input_->size()) Close(0);
  }

  void Drain(int i) {
    char buf[8192];
    while (fds_[i] >= 0) {
      ssize_t n = ::read(fds_[i], buf, sizeof buf);
      if (n > 0) {
        Append(sinks_[i], buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        Close(i);
      } else if (errno == EAGAIN) {
        return;
      }
    }
  }

  void Append(std::string* sink, const char* data, size_t n) {
    sink->append(data, n);
    if (keep_ > 0 && sink->size() > 2 * keep_) sink->erase(0, sink->size() - keep_);
  }

  size_t keep_;
  const std::string* input_;
  size_t written_ = 0;
  int fds_[3] = {-1, -1, -1};
  std::string* sinks_[3] = {nullptr, nullptr, nullptr};
};

bool Reaped(pid_t pid, int options, int* status) {
  while (true) {
    pid_t w = ::waitpid(pid, status, options);
    if (w == pid) return true;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {  // reaped by someone else (ECHILD): nothing more to learn
      *status = 0;
      return true;
    }
    return false;
  }
}

}  // namespace

SubprocessResult RunSubprocess(const SubprocessOptions& opts) {
  SubprocessResult r;
  Subprocess child = StartSubprocess(opts);
  r.error = child.error;
  if (!child.started()) return r;
  r.pid = child.pid;
  PipeSet pipes(child, opts, &r);
  int64_t deadline = opts.timeout_ms > 0 ? RealClock::MonotonicMs() + opts.timeout_ms : 0;
  int status = 0;
  int sleep_us = 200;
  while (true) {
    bool reading = pipes.open();
    if (!reading && deadline == 0) {
      Reaped(child.pid, 0, &status);
      break;
    }
    if ((!reading || opts.stop_at_exit) && Reaped(child.pid, WNOHANG, &status)) {
      pipes.DrainAll();
      break;
    }
    int64_t left = deadline > 0 ? deadline - RealClock::MonotonicMs() : -1;
    if (deadline > 0 && left <= 0) {
      r.timed_out = true;
      if (opts.new_session || opts.new_process_group) ::kill(-child.pid, SIGKILL);
      ::kill(child.pid, SIGKILL);
      Reaped(child.pid, 0, &status);
      break;
    }
    if (reading) {
      int wait_ms = opts.stop_at_exit ? kExitCheckMs : -1;
      if (left >= 0)
        wait_ms = static_cast<int>(std::min<int64_t>(wait_ms < 0 ? left : wait_ms, left));
      pipes.Pump(wait_ms);
    } else {
      ::usleep(static_cast<useconds_t>(std::min<int64_t>(sleep_us, left * 1000)));
      sleep_us = std::min(sleep_us * 2, kMaxSleepUs);
    }
  }
  r.exit_code = ExitCodeOf(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

}  // namespace sluice
