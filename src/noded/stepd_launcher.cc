#include "noded/stepd_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace sluice {

std::string StepdLauncher::DefaultStepdPath() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "sluice-stepd";
  return (exe.parent_path() / "sluice-stepd").string();
}

Expected<pid_t> StepdLauncher::Spawn(const std::string& job_dir) { return SpawnArgs({job_dir}); }

Expected<pid_t> StepdLauncher::SpawnStep(const std::string& step_dir) {
  return SpawnArgs({"--step", step_dir});
}

Expected<pid_t> StepdLauncher::SpawnArgs(std::vector<std::string> args) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string path = stepd_path_;
  std::vector<char*> argv{path.data()};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, path.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Internal("cannot start " + path + ": " + std::strerror(rc));
  std::lock_guard<std::mutex> lock(mu_);
  children_.insert(pid);
  return pid;
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
    it = (r == *it || r < 0) ? children_.erase(it) : std::next(it);
  }
}

}  // namespace sluice
