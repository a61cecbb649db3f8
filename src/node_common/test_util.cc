#include "node_common/test_util.h"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/clock.h"

namespace sluice::testing {

TempDir::TempDir() {
  char tmpl[] = "/tmp/sluice-test.XXXXXX";
  path_ = ::mkdtemp(tmpl);
  ::chmod(path_.c_str(), 0755);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string SiblingBinary(const std::string& name) {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / name;
}

BatchLaunch MakeLaunch(int64_t job_id, const std::string& script, const std::string& work_dir) {
  BatchLaunch l;
  l.set_job_id(job_id);
  JobInfo* job = l.mutable_job();
  job->set_job_id(job_id);
  job->set_uid(::getuid());
  job->set_gid(::getgid());
  if (passwd* pw = ::getpwuid(::getuid())) job->set_user(pw->pw_name);
  job->mutable_spec()->set_name("test");
  job->mutable_spec()->set_script(script);
  job->mutable_spec()->set_work_dir(work_dir);
  NodeAlloc* a = job->add_alloc();
  a->set_node("n1");
  a->add_cpu_ids(0);
  a->set_ntasks(1);
  *l.mutable_local() = *a;
  l.add_env("PATH=/usr/local/bin:/usr/bin:/bin");
  l.set_stdout_path(work_dir + "/out.txt");
  l.set_kill_wait_s(1);
  l.set_cluster_name("testcluster");
  return l;
}

pid_t StartStepd(const std::string& job_dir, bool use_cgroups) {
  std::string bin = SiblingBinary("sluice-stepd");
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!use_cgroups) ::setenv("SLUICE_STEPD_CGROUPS", "none", 1);
    ::execl(bin.c_str(), bin.c_str(), job_dir.c_str(), nullptr);
    ::_exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid, int timeout_ms) {
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  while (RealClock::MonotonicMs() < deadline) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r < 0) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

bool ProcessAlive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t rp = line.rfind(')');
  return rp != std::string::npos && rp + 2 < line.size() && line[rp + 2] != 'Z';
}

bool WaitForFile(const std::string& path, int timeout_ms) {
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  while (RealClock::MonotonicMs() < deadline) {
    if (::access(path.c_str(), F_OK) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace sluice::testing
