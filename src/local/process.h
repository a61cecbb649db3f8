// Small process helpers for the local cluster and integration tests: start a daemon
// detached (own session, output to a log file), run a command and capture its output,
// check/kill pids, pick free TCP ports on loopback.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

struct RunResult {
  int exit_code = -1;  // 128+signal when killed by a signal
  std::string out;
  std::string err;
};

struct RunOptions {
  std::optional<uid_t> uid;  // run as this user (root only)
  std::optional<gid_t> gid;
  std::vector<std::string> extra_env;  // KEY=VALUE added to the current environment
  std::string cwd;
  std::string stdin_data;
  int timeout_ms = 60'000;  // killed (and exit_code 124) after this
};

// Starts argv[0] (a path) in a new session with stdin=/dev/null and stdout/stderr
// appended to `log_path`. Returns its pid, or why it could not be started (the log
// cannot be opened, the program cannot be executed). The caller reaps it.
Expected<pid_t> SpawnDetached(const std::vector<std::string>& argv, const std::string& log_path,
                              const std::vector<std::string>& extra_env = {});
// Runs argv (argv[0] searched in PATH) in its own process group to completion and
// captures stdout/stderr: exit_code 127 when it cannot be executed, 126 when the cwd or
// ids cannot be set, -1 when no process could be made.
RunResult RunCommand(const std::vector<std::string>& argv, const RunOptions& opts = {});

bool ProcessAlive(pid_t pid);
// Sends `sig`, then SIGKILL after `grace_ms` if still alive; reaps if it is our child.
void StopProcess(pid_t pid, int sig, int grace_ms);
// A TCP port that was free on 127.0.0.1 a moment ago. Chosen at random below the
// kernel's ephemeral range (ip_local_port_range): a port from that range may become an
// outgoing connection's source port before the daemon it was meant for binds it (seen
// under parallel tests: "--metrics-port: cannot listen"), one below it cannot.
Expected<int> FreeTcpPort();

}  // namespace sluice
