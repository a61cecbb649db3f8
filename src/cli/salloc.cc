// salloc: get an interactive allocation, run a command in it, release it (see srun.h).
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "cli/allocation.h"
#include "cli/keepalive.h"
#include "cli/srun.h"
#include "common/clock.h"
#include "common/config.h"

extern char** environ;

namespace sluice {
namespace {

Expected<pid_t> StartCommand(const std::vector<std::string>& cmd,
                             const std::vector<std::string>& extra, const sigset_t& mask,
                             const CliEnv& env) {
  std::map<std::string, std::string> vars = env.environ;
  for (const std::string& e : extra) {
    size_t eq = e.find('=');
    vars[e.substr(0, eq)] = e.substr(eq + 1);
  }
  std::vector<std::string> flat;
  for (auto& [k, v] : vars) flat.push_back(k + "=" + v);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));
  if (pid > 0) return pid;
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  std::vector<char*> envp, argv;
  for (std::string& e : flat) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = cmd;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  environ = envp.data();
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr, "salloc: error: %s: %s\n", args[0].c_str(), std::strerror(errno));
  ::_exit(127);
}

// Waits for the command; forwards SIGTERM/SIGHUP/SIGQUIT; ends it when the allocation
// is revoked. Returns its exit code (128+signal when signalled).
int WaitCommand(pid_t pid, int64_t job_id, ClientApiInterface* api, int sig_fd, CliEnv& env) {
  int64_t next_check = RealClock::MonotonicMs() + 1000;
  bool revoked = false;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    }
    pollfd p{sig_fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      signalfd_siginfo si;
      while (::read(sig_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo != SIGINT) ::kill(pid, static_cast<int>(si.ssi_signo));
      }
    }
    if (!revoked && RealClock::MonotonicMs() >= next_check) {
      next_check = RealClock::MonotonicMs() + 1000;
      JobState st = CurrentState(job_id, api);
      if (st != JOB_RUNNING && st != JOB_STATE_UNSPECIFIED) {
        *env.err << "salloc: Job allocation " << job_id << " has been revoked.\n";
        env.err->flush();
        ::kill(pid, SIGHUP);
        ::kill(pid, SIGTERM);
        revoked = true;
      }
    }
  }
}

}  // namespace

int RunSalloc(const std::vector<std::string>& args, CliEnv& env) {
  SrunOptions o;
  ClientApiInterface* api = nullptr;
  if (int rc = PrepareAllocCommand("salloc", args, &o, &api, env); rc != 0) return rc < 0 ? 0 : rc;
  std::vector<std::string> cmd = o.command;
  if (cmd.empty()) cmd.push_back(env.Getenv("SHELL").empty() ? "/bin/sh" : env.Getenv("SHELL"));
  SignalWatch signals;
  Expected<JobSpec> spec = AllocationSpec(o, "interactive", env);
  if (!spec.ok()) {
    *env.err << "salloc: error: " << spec.status().message() << "\n";
    return 1;
  }
  Expected<JobInfo> job =
      Allocate("salloc", std::move(*spec), api, env, signals.fd(), o.immediate_s);
  if (!job.ok()) return 1;
  *env.err << "salloc: Granted job allocation " << job->job_id() << "\n";
  env.err->flush();
  std::string conf = env.Getenv("SLUICE_CONF");
  auto cfg = LoadConfigFile(conf.empty() ? DefaultConfigPath() : conf);
  std::vector<std::string> vars = AllocationEnv(*job, cfg.ok() ? cfg->cluster_name : "");
  Expected<pid_t> pid = StartCommand(cmd, vars, signals.old_mask(), env);
  int rc = 1;
  if (pid.ok()) {
    ClientKeepalive keepalive(api, job->job_id());
    rc = WaitCommand(*pid, job->job_id(), api, signals.fd(), env);
  } else {
    *env.err << "salloc: error: " << pid.status().message() << "\n";
  }
  *env.err << "salloc: Relinquishing job allocation " << job->job_id() << "\n";
  Release("salloc", job->job_id(), rc, api, env);
  return rc;
}

}  // namespace sluice
