#include "local/process.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

#include "common/clock.h"
#include "common/subprocess.h"

namespace sluice {

Expected<pid_t> SpawnDetached(const std::vector<std::string>& argv, const std::string& log_path,
                              const std::vector<std::string>& extra_env) {
  SubprocessOptions o;
  o.argv = argv;
  o.env_add = extra_env;
  o.in = Stdio::Null();
  o.out = Stdio::AppendFile(log_path);
  o.err = Stdio::Stdout();
  o.new_session = true;
  Subprocess daemon = StartSubprocess(o);
  if (daemon.error.step == SpawnStep::kOpen) {
    return Internal("cannot open " + log_path + ": " + strerror(daemon.error.error));
  }
  if (!daemon.started()) return Internal("cannot start " + argv[0] + ": " + daemon.error.Message());
  return daemon.pid;
}

RunResult RunCommand(const std::vector<std::string>& argv, const RunOptions& opts) {
  SubprocessOptions o;
  o.argv = argv;
  o.search_path = true;
  o.env_add = opts.extra_env;
  o.cwd = opts.cwd;
  o.uid = opts.uid;
  o.gid = opts.gid;
  o.in = o.out = o.err = Stdio::Pipe();
  o.stdin_data = opts.stdin_data;
  o.new_process_group = true;
  o.timeout_ms = opts.timeout_ms;
  SubprocessResult r = RunSubprocess(o);
  RunResult res;
  res.out = std::move(r.out);
  res.err = std::move(r.err);
  if (!r.error.ok()) {
    // Not started: 127 when the program could not be executed, 126 when an earlier step
    // in the child failed (cwd, ids), -1 when there was no child.
    res.exit_code = r.error.step == SpawnStep::kExec ? 127 : r.error.in_child() ? 126 : -1;
    if (!r.error.in_child()) res.err = r.error.Message();
  } else {
    res.exit_code = r.timed_out ? 124 : r.exit_code;
  }
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

namespace {

// Binds 127.0.0.1:`port` (0: any) and releases it; the port bound, or -1.
int TryBind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof addr;
  int got = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    got = ntohs(addr.sin_port);
  }
  close(fd);
  return got;
}

}  // namespace

Expected<int> FreeTcpPort() {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  constexpr int kLowest = 10000;
  if (ephemeral_low - kLowest >= 1000) {
    static std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(getpid()));
    std::uniform_int_distribution<int> pick(kLowest, ephemeral_low - 1);
    for (int tries = 0; tries < 200; ++tries) {
      if (int port = TryBind(pick(rng)); port > 0) return port;
    }
  }
  int port = TryBind(0);  // a machine whose ephemeral range leaves no room below it
  if (port <= 0) return Internal("bind failed");
  return port;
}

}  // namespace sluice
