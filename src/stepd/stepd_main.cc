// sluice-stepd <jobdir>: supervises one batch job (see supervisor.h).
// sluice-stepd --step <stepdir>: runs this node's tasks of one job step (step_supervisor.h).
// sluice-stepd --wait <padding>: started ahead of need (noded/stepd_launcher.h); blocks
//   on the socket at fd 3 for one message holding the arguments of one of the two forms
//   above ('\0'-separated), then runs as if started with them (and shows them as its
//   command line, written over the padding); exits quietly at EOF.
// Started detached by the node agent; its stdio goes to <dir>/stepd.log.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/clock.h"
#include "node_common/job_dir.h"
#include "stepd/job_spawn.h"
#include "stepd/step_supervisor.h"
#include "stepd/supervisor.h"

namespace {

void Detach(const sluice::JobDir& dir) {
  int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  int log_fd = ::open(dir.Log().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  if (log_fd >= 0) {
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
  }
  ::close_range(3, ~0U, 0);
  ::setsid();  // fails harmlessly when already a session leader
}

int Run(const std::vector<std::string>& args) {
  // SLUICE_STEPD_CGROUPS=none forces the process-group fallback (tests); =<path> uses the
  // cgroup v2 hierarchy mounted there (e.g. /sys/fs/cgroup/unified on a hybrid host).
  const char* cg = std::getenv("SLUICE_STEPD_CGROUPS");
  sluice::CgroupRoots roots;
  if (cg != nullptr && std::string(cg) == "none") roots = sluice::CgroupRoots{"", ""};
  if (cg != nullptr && cg[0] == '/') roots = sluice::CgroupRoots{cg, ""};
  if (args.size() == 2 && args[0] == "--step" && args[1][0] == '/') {
    Detach(sluice::JobDir(args[1]));
    sluice::StepSupervisorOptions options;
    options.cgroups = roots;
    return sluice::StepSupervisor(args[1], options).Run();
  }
  if (args.size() != 1 || args[0].empty() || args[0][0] != '/') {
    std::fprintf(
        stderr,
        "usage: sluice-stepd <absolute job directory> | --step <absolute step directory>\n");
    return 2;
  }
  sluice::JobDir dir(args[0]);
  Detach(dir);
  sluice::RealClock clock;
  sluice::SupervisorOptions options;
  options.cgroups = roots;
  sluice::Supervisor supervisor(args[0], options, &clock);
  return supervisor.Run();
}

// Loads the name-service configuration and modules (nsswitch.conf, libnss_*) while
// waiting, so that resolving the job's user after the hand-off takes microseconds.
void WarmUserLookups() {
  sluice::JobInfo self;
  self.set_uid(::getuid());
  self.set_gid(::getgid());
  (void)sluice::ResolveUser(self);
}

// The arguments a waiting stepd receives on `fd`, or none at EOF (its agent went away).
std::vector<std::string> ReceiveArgs(int fd) {
  char buf[8192];
  ssize_t n;
  do {
    n = ::recv(fd, buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  std::vector<std::string> args;
  if (n <= 0) return args;
  std::string msg(buf, static_cast<size_t>(n));
  for (size_t at = 0; at <= msg.size();) {
    size_t end = std::min(msg.find('\0', at), msg.size());
    args.push_back(msg.substr(at, end - at));
    at = end + 1;
  }
  return args;
}

// Rewrites the command line (/proc/<pid>/cmdline, ps) in place to argv[0] and `args`, so
// that a prestarted stepd shows what it runs like one started with those arguments (the
// agent and operators find step supervisors by it). The launcher pads a waiting stepd's
// command line to leave room; false when it does not fit.
bool SetCommandLine(int argc, char** argv, const std::vector<std::string>& args) {
  char* begin = argv[0];
  char* end = argv[argc - 1] + std::strlen(argv[argc - 1]) + 1;
  std::string line = std::string(argv[0]) + '\0';
  for (const std::string& a : args) line.append(a).push_back('\0');
  if (line.size() > static_cast<size_t>(end - begin)) return false;
  std::memset(begin, 0, static_cast<size_t>(end - begin));
  std::memcpy(begin, line.data(), line.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--wait") {  // --wait [padding]
    WarmUserLookups();
    args = ReceiveArgs(3);
    if (args.empty()) return 0;
    SetCommandLine(argc, argv, args);
  }
  return Run(args);
}
