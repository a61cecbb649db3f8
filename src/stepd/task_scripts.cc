#include "stepd/task_scripts.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/subprocess.h"

namespace sluice {
namespace {

void WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

void Unset(std::vector<std::string>* env, const std::string& name) {
  std::erase_if(*env, [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
}

SubprocessOptions ScriptOptions(const std::string& path, const std::vector<std::string>& env) {
  SubprocessOptions o;
  o.argv = {path};
  o.env = env;
  return o;
}

// "execve(): <path>: <why>", as Slurm words it.
std::string ExecError(const std::string& path, const SpawnError& e) {
  return "execve(): " + path + ": " + std::strerror(e.error);
}

}  // namespace

void ApplyTaskPrologOutput(const std::string& output, std::vector<std::string>* env,
                           std::string* printed) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("export ", 0) == 0) {
      std::string kv = line.substr(7);
      size_t eq = kv.find('=');
      if (eq == 0 || eq == std::string::npos) continue;
      Unset(env, kv.substr(0, eq));
      env->push_back(kv);
    } else if (line.rfind("unset ", 0) == 0) {
      std::string name = line.substr(6);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!name.empty()) Unset(env, name);
    } else if (line.rfind("print ", 0) == 0) {
      *printed += line.substr(6) + "\n";
    }
  }
}

void RunTaskProlog(const std::string& path, std::vector<std::string>* env) {
  SubprocessOptions o = ScriptOptions(path, *env);
  o.out = Stdio::Pipe();
  SubprocessResult r = RunSubprocess(o);
  if (!r.started() && !r.error.in_child()) return;  // no pipe or no process: as without a prolog
  if (!r.started())
    WriteAll(STDERR_FILENO, "slurmstepd: error: " + ExecError(path, r.error) + "\n");
  if (!r.started() || r.exit_code != 0) {
    WriteAll(STDERR_FILENO, "slurmstepd: error: task prolog " + path + " failed\n");
  }
  std::string printed;
  ApplyTaskPrologOutput(r.out, env, &printed);
  WriteAll(STDOUT_FILENO, printed);
}

Expected<pid_t> StartTaskEpilog(const std::string& path, const std::vector<std::string>& env,
                                const std::string& work_dir, const UserIds& user) {
  SubprocessOptions o = ScriptOptions(path, env);
  o.in = o.out = o.err = Stdio::Null();
  o.new_process_group = true;
  o.clear_signal_mask = true;
  o.before_exec = [&] {
    DropPrivileges(user);  // _exits on failure
    if (work_dir.empty() || ::chdir(work_dir.c_str()) != 0) (void)::chdir("/tmp");
    return 0;
  };
  Subprocess epilog = StartSubprocess(o);
  if (epilog.error.step == SpawnStep::kExec) return Internal(ExecError(path, epilog.error));
  if (!epilog.started()) return Internal(epilog.error.Message());
  return epilog.pid;
}

}  // namespace sluice
