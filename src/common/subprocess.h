// Subprocess: the one way Sluice starts a program in a child process (hooks, task
// scripts, helper daemons, test commands). What the child gets is described by
// SubprocessOptions: argv, environment (replaced and/or added to), working directory,
// where fds 0-2 come from / go to, extra fds, a new session or process group, signal
// mask and dispositions, a uid/gid, and a "before exec" hook for special cases.
//
//   StartSubprocess: forks and execs; returns once the program runs (or could not
//     start), with the parent's ends of any pipes. The caller reaps the pid.
//   RunSubprocess: starts, feeds `stdin_data`, captures stdout/stderr into strings,
//     waits (killing the child, and its group when it has one, with SIGKILL after
//     `timeout_ms`) and reports how it ended.
//
// When the options need nothing but fds, session/group, signals and environment, the
// child is made by posix_spawn (vfork-like: cheap in a big multi-threaded daemon);
// otherwise by fork(). Either way a setup step that fails in the child (chdir,
// setuid, the hook, execve ...) comes back as {step, errno} (through a close-on-exec
// pipe after a fork; posix_spawn's failures all count as the exec's): the program then
// did not start and the child has been reaped. Between fork and exec the child makes
// only async-signal-safe calls (every string and array is built before the fork),
// apart from what a `before_exec` hook does. Signals are blocked around the fork; in
// the child, caught signals get their default action before the mask is restored, so
// no parent handler ever runs in the child.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

// Where one of the child's fds 0, 1, 2 comes from or goes to.
struct Stdio {
  enum class Kind {
    kInherit,     // the parent's own fd
    kNull,        // /dev/null
    kPipe,        // a pipe to the parent (RunSubprocess: stdin_data / captured)
    kFd,          // `fd`, an fd of the parent
    kAppendFile,  // `path`, created (0644) and opened for appending by the parent
    kStdout,      // stderr only: wherever stdout goes
  };
  Kind kind = Kind::kInherit;
  int fd = -1;
  std::string path;

  static Stdio Inherit() { return {}; }
  static Stdio Null() { return {Kind::kNull, -1, {}}; }
  static Stdio Pipe() { return {Kind::kPipe, -1, {}}; }
  static Stdio Fd(int fd) { return {Kind::kFd, fd, {}}; }
  static Stdio AppendFile(std::string path) { return {Kind::kAppendFile, -1, std::move(path)}; }
  static Stdio Stdout() { return {Kind::kStdout, -1, {}}; }
};

struct SubprocessOptions {
  std::vector<std::string> argv;  // argv[0]: a path, or with search_path a name
  bool search_path = false;       // argv[0] without '/' is looked up in the child's PATH
  // The child's environment ("K=V"): `env` when set (else the parent's), then each
  // entry of `env_add` replacing any of the same name.
  std::optional<std::vector<std::string>> env;
  std::vector<std::string> env_add;
  std::string cwd;  // empty: the parent's

  Stdio in, out, err;
  std::vector<std::pair<int, int>> extra_fds;  // {parent fd, child fd}, child fds > 2
  bool close_other_fds = false;                // close every other fd above 2 (below 1024)

  bool new_session = false;              // setsid()
  bool new_process_group = false;        // setpgid(0, 0) (ignored with new_session)
  bool clear_signal_mask = false;        // else the parent's mask at the time of the fork
  bool default_signal_handlers = false;  // also reset ignored signals to SIG_DFL

  // As root: setgroups(0) (best effort), setgid, setuid.
  std::optional<gid_t> gid;
  std::optional<uid_t> uid;
  // Runs in the child after everything above, with all signals blocked, just before
  // the exec; returns 0 or an errno (reported as SpawnStep::kBeforeExec). It may _exit.
  std::function<int()> before_exec;

  // RunSubprocess only.
  std::string stdin_data;      // written to a kPipe stdin, which is then closed
  int64_t timeout_ms = 0;      // <= 0: none
  bool stop_at_exit = false;   // stop reading once the child exited (its background
                               // children may keep the pipes open); else read to EOF
  size_t keep_tail_bytes = 0;  // > 0: keep about the last this many bytes of each output
};

enum class SpawnStep {
  kNone,
  kPipe,
  kOpen,
  kFork,
  kSession,
  kDup,
  kChdir,
  kSetGroups,
  kSetGid,
  kSetUid,
  kBeforeExec,
  kExec,
};

struct SpawnError {
  SpawnStep step = SpawnStep::kNone;
  int error = 0;  // errno

  bool ok() const { return step == SpawnStep::kNone; }
  bool in_child() const { return step >= SpawnStep::kSession; }  // vs. in the parent
  // "<step>: <strerror>", e.g. "execve(): No such file or directory".
  std::string Message() const;
};

struct Subprocess {
  pid_t pid = -1;  // > 0 once the program runs (or a before_exec hook _exited)
  SpawnError error;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // the parent's ends of kPipe (close-on-exec)
  bool started() const { return pid > 0; }
};

struct SubprocessResult {
  pid_t pid = -1;  // reaped; still the id of the child's process group if it made one
  SpawnError error;
  bool timed_out = false;
  int exit_code = -1;  // WEXITSTATUS, or 128 + signal
  int term_signal = 0;
  std::string out, err;  // captured kPipe output
  bool started() const { return error.ok(); }
};

Subprocess StartSubprocess(const SubprocessOptions& opts);
SubprocessResult RunSubprocess(const SubprocessOptions& opts);
// The exit code of a wait status: WEXITSTATUS, or 128 + the signal.
int ExitCodeOf(int wait_status);

}  // namespace sluice
