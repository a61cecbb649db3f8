#include "node_common/hook_runner.h"

#include <signal.h>

#include <fmt/format.h>

#include <cstring>

#include "common/subprocess.h"

namespace sluice {
namespace {

constexpr size_t kKeepBytes = 4096;

std::string LastLine(const std::string& out) {
  size_t end = out.size();
  while (end > 0) {
    while (end > 0 && (out[end - 1] == '\n' || out[end - 1] == '\r' || out[end - 1] == ' ' ||
                       out[end - 1] == '\t')) {
      --end;
    }
    size_t begin = out.rfind('\n', end == 0 ? 0 : end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    while (begin < end && (out[begin] == ' ' || out[begin] == '\t')) ++begin;
    if (begin < end) return out.substr(begin, std::min<size_t>(end - begin, 256));
    end = begin == 0 ? 0 : begin - 1;
  }
  return "";
}

}  // namespace

std::string HookResult::Reason(const std::string& what) const {
  if (!last_line.empty() && started && !ok()) return last_line;
  if (!started) return fmt::format("{} failed to start", what);
  if (timed_out) return fmt::format("{} timed out", what);
  if (term_signal != 0) return fmt::format("{} killed by signal {}", what, term_signal);
  return fmt::format("{} failed exit {}", what, exit_code);
}

HookResult RunHook(const std::string& program, const std::vector<std::string>& env,
                   int64_t timeout_ms) {
  SubprocessOptions o;
  o.argv = {program};
  o.env = env;
  o.in = Stdio::Null();
  o.out = Stdio::Pipe();
  o.err = Stdio::Stdout();
  o.close_other_fds = true;
  o.new_process_group = true;
  o.clear_signal_mask = true;
  o.default_signal_handlers = true;
  o.timeout_ms = timeout_ms;
  o.stop_at_exit = true;  // background children of the hook may keep its output open
  o.keep_tail_bytes = kKeepBytes;
  SubprocessResult run = RunSubprocess(o);
  HookResult r;
  r.started = run.started() || run.error.in_child();
  if (!r.started) {
    if (!run.error.ok()) r.last_line = run.error.Message();
    return r;
  }
  if (!run.error.ok()) {  // it ran, as far as the caller is concerned, and exited 127
    r.exit_code = 127;
    r.last_line = run.error.step == SpawnStep::kExec
                      ? "cannot execute " + program + ": " + std::strerror(run.error.error)
                      : run.error.Message();
    return r;
  }
  ::kill(-run.pid, SIGKILL);  // leftovers of the group (background children)
  r.timed_out = run.timed_out;
  r.exit_code = run.exit_code;
  r.term_signal = run.term_signal;
  r.last_line = LastLine(run.out);
  return r;
}

}  // namespace sluice
