#include "stepd/job_spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/rlimits.h"
#include "stepd/batch_env.h"

namespace sluice {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::string msg = "sluice-stepd: error: " + what + ": " + std::strerror(errno) + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg.data(), msg.size());
  (void)ignored;
  ::_exit(kSetupFailedExit);
}

}  // namespace

UserIds ResolveUser(const JobInfo& job) {
  UserIds u{job.uid(), job.gid(), ""};
  struct passwd pw, *res = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(u.uid, &pw, buf.data(), buf.size(), &res) == 0 && res != nullptr) {
    u.name = res->pw_name;
  }
  if (::geteuid() == 0 && !u.name.empty()) {
    int n = 64;
    for (int tries = 0; tries < 4; ++tries) {
      u.groups.resize(static_cast<size_t>(n));
      int got = n;
      if (::getgrouplist(u.name.c_str(), u.gid, u.groups.data(), &got) >= 0) {
        u.groups.resize(static_cast<size_t>(got));
        break;
      }
      u.groups.clear();
      n = std::max(got, n * 2);
    }
  }
  return u;
}

void DropPrivileges(const UserIds& u) {
  if (::geteuid() != 0) {
    if (u.uid != ::geteuid()) {
      errno = EPERM;
      Fail("cannot run a job of uid " + std::to_string(u.uid) + " without root");
    }
    return;
  }
  bool groups_ok = !u.groups.empty() ? ::setgroups(u.groups.size(), u.groups.data()) == 0
                   : !u.name.empty() ? ::initgroups(u.name.c_str(), u.gid) == 0
                                     : ::setgroups(0, nullptr) == 0;
  if (!groups_ok) {
    Fail("initgroups");
  }
  if (::setgid(u.gid) != 0) Fail("setgid");
  if (::setuid(u.uid) != 0) Fail("setuid");
}

std::string ApplyPropagatedLimits(const google::protobuf::RepeatedPtrField<ResourceLimit>& limits) {
  std::vector<ResourceLimitValue> values;
  for (const ResourceLimit& l : limits) values.push_back({l.resource(), l.soft()});
  std::string out;
  for (const std::string& e : ApplyLimits(values)) out += "slurmstepd: error: " + e + "\n";
  return out;
}

namespace {

std::string ChangeToWorkDir(const std::string& work_dir) {
  if (!work_dir.empty() && ::chdir(work_dir.c_str()) == 0) return work_dir;
  std::fprintf(stderr, "sluice-stepd: error: cannot chdir to %s (%s), using /tmp\n",
               work_dir.c_str(), std::strerror(errno));
  if (::chdir("/tmp") != 0) Fail("chdir /tmp");
  return "/tmp";
}

void OpenOnto(const std::string& path, int flags, int target) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) Fail("cannot open " + path);
  if (::dup2(fd, target) < 0) Fail("dup2");
  ::close(fd);
}

void SetUpStdio(const BatchLaunch& l) {
  OpenOnto(l.job().spec().stdin_path().empty() ? "/dev/null" : l.job().spec().stdin_path(),
           O_RDONLY, STDIN_FILENO);
  int wflags = O_WRONLY | O_CREAT | (l.append_output() ? O_APPEND : O_TRUNC);
  std::string out =
      l.stdout_path().empty() ? "slurm-" + std::to_string(l.job_id()) + ".out" : l.stdout_path();
  std::string err = l.stderr_path().empty() ? out : l.stderr_path();
  OpenOnto(out, wflags, STDOUT_FILENO);
  if (err == out) {
    if (::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) Fail("dup2");
  } else {
    OpenOnto(err, wflags, STDERR_FILENO);
  }
}

void ResetSignals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
  }
}

mode_t UmaskFrom(const BatchLaunch& l) {
  for (const std::string& e : l.env()) {
    if (e.rfind("SLURM_UMASK=", 0) == 0)
      return static_cast<mode_t>(std::strtol(e.c_str() + 12, nullptr, 8));
  }
  return 022;
}

[[noreturn]] void RunChild(const JobDir& dir, const BatchLaunch& l, const UserIds& u) {
  ::setsid();
  ResetSignals();
  std::string limit_errors = ApplyPropagatedLimits(l.job().spec().rlimits());
  DropPrivileges(u);
  ::umask(UmaskFrom(l) & 0777);
  std::string cwd = ChangeToWorkDir(l.job().spec().work_dir());
  SetUpStdio(l);
  if (!limit_errors.empty()) {
    ssize_t ignored = ::write(STDERR_FILENO, limit_errors.data(), limit_errors.size());
    (void)ignored;
  }
  BatchEnvContext ctx{l.local().node(), cwd, ::getpid()};
  std::vector<std::string> env = BuildBatchEnv(l, ctx);
  std::vector<char*> envp, argv;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string script = dir.Script();
  argv.push_back(script.data());
  std::vector<std::string> args(l.job().spec().argv().begin(), l.job().spec().argv().end());
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execve(script.c_str(), argv.data(), envp.data());
  Fail("cannot execute batch script");
}

}  // namespace

Status WriteJobScript(const JobDir& dir, const BatchLaunch& launch) {
  RETURN_IF_ERROR(WriteFileAtomic(dir.Script(), launch.job().spec().script(), 0700, false));
  if (::geteuid() == 0 &&
      ::chown(dir.Script().c_str(), launch.job().uid(), launch.job().gid()) != 0) {
    return Internal("chown " + dir.Script() + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Expected<pid_t> SpawnJob(const JobDir& dir, const BatchLaunch& launch, ProcessTracker* tracker) {
  UserIds user = ResolveUser(launch.job());
  std::fflush(nullptr);
  pid_t pid = tracker->ForkChild();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) RunChild(dir, launch, user);
  ::setpgid(pid, pid);  // no-op when the child already called setsid()
  tracker->SetLeader(pid);
  return pid;
}

}  // namespace sluice
