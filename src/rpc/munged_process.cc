// StartMunged / StopMunged: see munged_process.h.
#include "rpc/munged_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "common/subprocess.h"
#include "rpc/credential.h"

namespace sluice {

namespace fs = std::filesystem;

namespace {

// Runs argv (argv[0] a path) to completion with stdio on /dev/null; returns the exit
// code, or -1 if it could not be started.
int RunQuiet(const std::vector<std::string>& argv) {
  SubprocessOptions o;
  o.argv = argv;
  o.in = o.out = o.err = Stdio::Null();
  SubprocessResult r = RunSubprocess(o);
  return r.started() ? r.exit_code : -1;
}

Status WriteKey(const std::string& path) {
  unlink(path.c_str());
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
  if (fd < 0) return Internal("cannot create MUNGE key " + path + ": " + std::strerror(errno));
  std::string key = RandomBytes(1024);
  bool ok = write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  close(fd);
  if (!ok) return Internal("cannot write MUNGE key " + path);
  return Status::Ok();
}

// Alive and not a zombie (munged is reparented; its reaper may be slow to reap it).
bool Running(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
}

}  // namespace

std::string FindMunged() {
  for (const char* dir : {"/usr/sbin", "/sbin", "/usr/local/sbin", "/usr/bin"}) {
    std::string p = std::string(dir) + "/munged";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

MungedPaths MungedPathsIn(const std::string& dir) {
  return {dir, dir + "/munge.socket", dir + "/munged.pid", dir + "/munged.log"};
}

Expected<MungedPaths> StartMunged(const std::string& dir) {
  std::string munged = FindMunged();
  if (munged.empty()) return NotFound("munged is not installed (apt-get install munge)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Internal("cannot create " + dir + ": " + ec.message());
  chmod(dir.c_str(), 0755);
  MungedPaths p = MungedPathsIn(dir);
  RETURN_IF_ERROR(WriteKey(dir + "/munge.key"));
  std::vector<std::string> argv = {munged,
                                   "--key-file=" + dir + "/munge.key",
                                   "--socket=" + p.socket,
                                   "--pid-file=" + p.pid_file,
                                   "--log-file=" + p.log_file,
                                   "--seed-file=" + dir + "/munged.seed",
                                   "--num-threads=2"};
  if (geteuid() == 0) argv.push_back("--force");  // root-owned paths outside /etc/munge
  int rc = RunQuiet(argv);
  if (rc != 0) {
    return Internal("munged failed to start (exit " + std::to_string(rc) + "); see " + p.log_file);
  }
  // munged's parent exits once the daemon is ready; wait for the socket to be safe.
  for (int i = 0; i < 500 && !fs::exists(p.socket); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!fs::exists(p.socket)) return Internal("munged did not create " + p.socket);
  return p;
}

void StopMunged(const MungedPaths& paths) {
  pid_t pid = 0;
  std::ifstream(paths.pid_file) >> pid;
  if (pid <= 0 || !Running(pid)) {  // no pid file: ask whoever holds the socket
    std::string munged = FindMunged();
    if (!munged.empty()) RunQuiet({munged, "--stop", "--socket=" + paths.socket});
    return;
  }
  // munged takes ~2 s to exit on SIGTERM (its timer thread); nothing it would write
  // then matters for a private instance, so it gets a short grace and then SIGKILL.
  kill(pid, SIGTERM);
  for (int i = 0; i < 10 && Running(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (Running(pid)) kill(pid, SIGKILL);
  for (int i = 0; i < 300 && Running(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace sluice
