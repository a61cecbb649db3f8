#include "stepd/task_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/slurm_format.h"
#include "stepd/cgroup_fork.h"
#include "stepd/cpu_bind.h"
#include "stepd/job_spawn.h"
#include "stepd/step_env.h"
#include "stepd/task_scripts.h"

extern char** environ;

namespace sluice {
namespace {

void WriteErr(const std::string& msg) {
  ssize_t ignored = ::write(STDERR_FILENO, msg.data(), msg.size());
  (void)ignored;
}

void ResetSignals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
  }
}

std::string EnterWorkDir(const std::string& dir) {
  if (!dir.empty() && ::chdir(dir.c_str()) == 0) return dir;
  WriteErr("slurmstepd: error: couldn't chdir to `" + dir + "': " + std::strerror(errno) +
           ": going to /tmp instead\n");
  if (::chdir("/tmp") != 0) ::_exit(1);
  return "/tmp";
}

mode_t UmaskOf(const std::vector<std::string>& env) {
  for (const std::string& e : env) {
    if (e.rfind("SLURM_UMASK=", 0) == 0)
      return static_cast<mode_t>(std::strtol(e.c_str() + 12, nullptr, 8));
  }
  return 022;
}

bool GetsStdin(const StepLaunch& l, int local_id) {
  int rank = local_id < l.task_ids_size() ? l.task_ids(local_id) : -2;
  for (int r : l.stdin_ranks()) {
    if (r == -1 || r == rank) return true;
  }
  return false;
}

[[noreturn]] void RunTask(const StepLaunch& l, int local_id, int out_w, int err_w, int in_r,
                          const UserIds* user) {
  ::setsid();
  ResetSignals();
  if (::dup2(out_w, STDOUT_FILENO) < 0 || ::dup2(err_w, STDERR_FILENO) < 0) ::_exit(1);
  if (in_r >= 0) {
    ::dup2(in_r, STDIN_FILENO);
  } else {
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  }
  CpuBindPlan bind = PlanCpuBind(l, local_id);
  std::string mask = ApplyCpuBind(bind);
  int rank = local_id < l.task_ids_size() ? l.task_ids(local_id) : 0;
  if (bind.verbose && !mask.empty()) {
    WriteErr(CpuBindVerboseLine(l.local().node(), rank, local_id, ::getpid(), mask));
  }
  WriteErr(ApplyPropagatedLimits(l.rlimits()));
  DropPrivileges(user != nullptr ? *user : ResolveUser(l.job()));
  std::string cwd = EnterWorkDir(l.work_dir());
  if (!l.input_pattern().empty()) {
    PatternVars v;
    v.job_id = l.job_id();
    v.step_id = l.step_id();
    v.job_name = l.job().spec().name();
    v.user = l.job().user();
    v.node = l.local().node();
    v.node_index = l.node_index();
    v.task_id = rank;
    std::string path = ExpandOutputPattern(l.input_pattern(), v);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      WriteErr("slurmstepd: error: Could not open stdin file " + path + ": " +
               std::strerror(errno) + "\n");
      ::_exit(1);
    }
    ::dup2(fd, STDIN_FILENO);
  }
  std::vector<std::string> env =
      BuildStepTaskEnv(l, StepTaskContext{l.local().node(), local_id, ::getpid(), cwd});
  ::umask(UmaskOf(env) & 0777);
  if (!l.task_prolog().empty()) RunTaskProlog(l.task_prolog(), &env);
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args(l.argv().begin(), l.argv().end());
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  environ = envp.data();  // execvp searches the task's own PATH
  ::execvp(argv[0], argv.data());
  WriteErr(std::string("slurmstepd: error: execve(): ") + args[0] + ": " + std::strerror(errno) +
           "\n");
  ::_exit(2);
}

}  // namespace

Expected<pid_t> SpawnTask(const StepLaunch& launch, int local_id, const ProcessTracker& cgroup,
                          TaskPipes* pipes, const UserIds* user) {
  if (launch.argv_size() == 0) return InvalidArgument("no command to run");
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  int in[2] = {-1, -1};
  if (GetsStdin(launch, local_id) && ::pipe2(in, O_CLOEXEC) != 0) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);
  pid_t pid = cgroup.ForkChild();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return Internal(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) RunTask(launch, local_id, out[1], err[1], in[0], user);
  ::setpgid(pid, pid);
  ::close(out[1]);
  ::close(err[1]);
  if (in[0] >= 0) {
    ::close(in[0]);
    ::fcntl(in[1], F_SETFL, O_NONBLOCK);
    pipes->in_write = in[1];
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  pipes->out_read = out[0];
  pipes->err_read = err[0];
  return pid;
}

}  // namespace sluice
