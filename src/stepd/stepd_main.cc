// sluice-stepd <jobdir>: supervises one batch job (see supervisor.h).
// sluice-stepd --step <stepdir>: runs this node's tasks of one job step (step_supervisor.h).
// Started detached by the node agent; its stdio goes to <dir>/stepd.log.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/clock.h"
#include "stepd/job_dir.h"
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

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--step" && argv[2][0] == '/') {
    Detach(sluice::JobDir(argv[2]));
    sluice::StepSupervisorOptions options;
    const char* cg = std::getenv("SLUICE_STEPD_CGROUPS");
    if (cg != nullptr && std::string(cg) == "none") options.join_job_cgroup = false;
    return sluice::StepSupervisor(argv[2], options).Run();
  }
  if (argc != 2 || argv[1][0] != '/') {
    std::fprintf(stderr, "usage: sluice-stepd <absolute job directory> | --step <absolute step directory>\n");
    return 2;
  }
  sluice::JobDir dir(argv[1]);
  Detach(dir);
  sluice::RealClock clock;
  sluice::SupervisorOptions options;
  // SLUICE_STEPD_CGROUPS=none forces the process-group fallback (tests); =<path> uses the
  // cgroup v2 hierarchy mounted there (e.g. /sys/fs/cgroup/unified on a hybrid host).
  const char* cg = std::getenv("SLUICE_STEPD_CGROUPS");
  if (cg != nullptr && std::string(cg) == "none") options.cgroups = sluice::CgroupRoots{"", ""};
  if (cg != nullptr && cg[0] == '/') options.cgroups = sluice::CgroupRoots{cg, ""};
  sluice::Supervisor supervisor(argv[1], options, &clock);
  return supervisor.Run();
}
