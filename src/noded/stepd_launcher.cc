#include "noded/stepd_launcher.h"

#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "common/subprocess.h"

namespace sluice {
namespace {
constexpr size_t kTitleRoom = 1024;
}  // namespace

StepdLauncher::StepdLauncher(std::string stepd_path, bool prestart)
    : stepd_path_(std::move(stepd_path)) {
  if (prestart) prestarter_ = std::thread([this] { PrestartLoop(); });
}

StepdLauncher::~StepdLauncher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    DropWaiting();
  }
  cv_.notify_all();
  if (prestarter_.joinable()) prestarter_.join();
}

std::string StepdLauncher::DefaultStepdPath() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "sluice-stepd";
  return (exe.parent_path() / "sluice-stepd").string();
}

Expected<pid_t> StepdLauncher::Spawn(const std::string& job_dir) { return Launch({job_dir}); }

Expected<pid_t> StepdLauncher::SpawnStep(const std::string& step_dir) {
  return Launch({"--step", step_dir});
}

Expected<pid_t> StepdLauncher::Launch(const std::vector<std::string>& args) {
  Expected<pid_t> pid = HandOff(args);
  return pid.ok() ? pid : SpawnProcess(args, -1);
}

Expected<pid_t> StepdLauncher::HandOff(const std::vector<std::string>& args) {
  std::string msg;
  for (const std::string& a : args) msg.append(a).push_back('\0');
  msg.pop_back();
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_.fd < 0) return Unavailable("no stepd waiting");
  pid_t pid = waiting_.pid;
  sched_param normal{};
  ::sched_setscheduler(pid, SCHED_OTHER, &normal);  // it waited at idle priority
  bool sent =
      ::send(waiting_.fd, msg.data(), msg.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(msg.size());
  // A stepd that had already died (not reaped yet) got nothing, even where the send went
  // through (on gVisor a dead process's socket can still take it): spawn one instead.
  siginfo_t info{};
  if (sent && ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
    sent = false;
  DropWaiting();  // it reads its message before the EOF; a new one is started meanwhile
  cv_.notify_all();
  if (!sent) return Unavailable("the waiting stepd is gone");
  return pid;
}

void StepdLauncher::DropWaiting() {
  if (waiting_.fd >= 0) ::close(waiting_.fd);
  waiting_ = Waiting{};
}

void StepdLauncher::PrestartLoop() {
  // This thread and the stepds it starts run only on otherwise idle CPUs (root only:
  // HandOff must be allowed to promote them back).
  sched_param idle{};
  if (::geteuid() == 0) ::sched_setscheduler(0, SCHED_IDLE, &idle);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (waiting_.fd >= 0) {
      cv_.wait(lock);
      continue;
    }
    lock.unlock();
    int sv[2];
    Expected<pid_t> pid = Unavailable("socketpair failed");
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0) {
      // The padding leaves the stepd room to show its real arguments later.
      pid = SpawnProcess({"--wait", std::string(kTitleRoom, ' ')}, sv[1]);
      ::close(sv[1]);
      if (!pid.ok()) ::close(sv[0]);
    }
    lock.lock();
    if (pid.ok()) {
      waiting_ = Waiting{*pid, sv[0]};
      if (stop_) DropWaiting();
    } else {
      std::fprintf(stderr, "sluiced: cannot prestart a stepd: %s\n",
                   pid.status().message().c_str());
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; });
    }
  }
}

// Starts the stepd with `args`; `fd3` >= 0 becomes its fd 3. It has the calling
// thread's scheduling policy.
Expected<pid_t> StepdLauncher::SpawnProcess(std::vector<std::string> args, int fd3) {
  SubprocessOptions o;
  o.argv = {stepd_path_};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.in = Stdio::Null();
  if (fd3 >= 0) o.extra_fds = {{fd3, 3}};
  o.new_session = true;
  o.clear_signal_mask = true;
  o.default_signal_handlers = true;
  Subprocess stepd = StartSubprocess(o);
  if (!stepd.started()) {
    return Internal("cannot start " + stepd_path_ + ": " + std::strerror(stepd.error.error));
  }
  std::lock_guard<std::mutex> lock(mu_);
  children_.insert(stepd.pid);
  return stepd.pid;
}

bool StepdLauncher::IsChild(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  return children_.count(pid) > 0;
}

pid_t StepdLauncher::WaitingPid() {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_.pid;
}

void StepdLauncher::Reap() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = children_.begin(); it != children_.end();) {
    int st = 0;
    pid_t r = ::waitpid(*it, &st, WNOHANG);
    if (r == *it && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
      std::fprintf(stderr, "sluiced: stepd %d ended abnormally (status %d, signal %d)\n", r,
                   WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    }
    if (r == *it && r == waiting_.pid) {  // the waiting one died: start another
      DropWaiting();
      cv_.notify_all();
    }
    it = (r == *it || r < 0) ? children_.erase(it) : std::next(it);
  }
}

}  // namespace sluice
