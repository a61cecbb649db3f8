#include "stepd/task_scripts.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace sluice {
namespace {

void WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void Unset(std::vector<std::string>* env, const std::string& name) {
  std::erase_if(*env, [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
}

[[noreturn]] void Exec(const std::string& path, const std::vector<std::string>& env) {
  std::vector<std::string> copy = env;
  std::vector<char*> envp;
  for (std::string& e : copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string arg0 = path;
  char* argv[] = {arg0.data(), nullptr};
  ::execve(path.c_str(), argv, envp.data());
  WriteAll(STDERR_FILENO, "slurmstepd: error: execve(): " + path + ": " + std::strerror(errno) + "\n");
  ::_exit(127);
}

}  // namespace

void ApplyTaskPrologOutput(const std::string& output, std::vector<std::string>* env,
                           std::string* printed) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("export ", 0) == 0) {
      std::string kv = line.substr(7);
      size_t eq = kv.find('=');
      if (eq == 0 || eq == std::string::npos) continue;
      Unset(env, kv.substr(0, eq));
      env->push_back(kv);
    } else if (line.rfind("unset ", 0) == 0) {
      std::string name = line.substr(6);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty()) Unset(env, name);
    } else if (line.rfind("print ", 0) == 0) {
      *printed += line.substr(6) + "\n";
    }
  }
}

void RunTaskProlog(const std::string& path, std::vector<std::string>* env) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(p[0]);
    ::close(p[1]);
    return;
  }
  if (pid == 0) {
    ::dup2(p[1], STDOUT_FILENO);
    Exec(path, *env);
  }
  ::close(p[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(p[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    WriteAll(STDERR_FILENO, "slurmstepd: error: task prolog " + path + " failed\n");
  }
  std::string printed;
  ApplyTaskPrologOutput(out, env, &printed);
  WriteAll(STDOUT_FILENO, printed);
}

Expected<pid_t> StartTaskEpilog(const std::string& path, const std::vector<std::string>& env,
                                const std::string& work_dir, const UserIds& user) {
  pid_t pid = ::fork();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(null_fd, fd);
    }
    DropPrivileges(user);
    if (work_dir.empty() || ::chdir(work_dir.c_str()) != 0) (void)::chdir("/tmp");
    Exec(path, env);
  }
  ::setpgid(pid, pid);  // both sides: no window where a kill(-pid) misses it
  return pid;
}

}  // namespace sluice
