// RunHook: runs an administrator's program (HealthCheckProgram, Prolog, Epilog) with the
// caller's privileges (root on a real cluster), a given environment and a time limit,
// and reports how it ended plus the last non-empty line it wrote on stdout/stderr
// (both go to one pipe). The program runs in its own process group, with a clean signal
// mask and default handlers, stdin from /dev/null; on timeout the whole group gets
// SIGKILL. Blocks the calling thread; waits for its own child only (waitpid on the pid).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

struct HookResult {
  bool started = false;  // false: fork/exec failed (`last_line` says why)
  bool timed_out = false;
  int exit_code = 0;  // WEXITSTATUS, or 128+signal when killed
  int term_signal = 0;
  std::string last_line;  // last non-empty output line, trimmed, at most 256 chars
  bool ok() const { return started && !timed_out && exit_code == 0 && term_signal == 0; }
  // "<last line>", else "<what> failed exit N" / "... timed out" / "... killed by signal N".
  std::string Reason(const std::string& what) const;
};

// `timeout_ms` <= 0: no limit.
HookResult RunHook(const std::string& program, const std::vector<std::string>& env,
                   int64_t timeout_ms);

}  // namespace sluice
