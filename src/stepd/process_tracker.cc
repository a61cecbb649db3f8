#include "stepd/process_tracker.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "stepd/cgroup_fork.h"

namespace sluice {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// Calls `fn` for every cgroup below `dir`, children before their parent, then for `dir`.
void ForEachCgroup(const std::string& dir, const std::function<void(const std::string&)>& fn) {
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> subs;
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_type == DT_DIR && e->d_name[0] != '.') subs.push_back(dir + "/" + e->d_name);
    }
    ::closedir(d);
    for (const std::string& sub : subs) ForEachCgroup(sub, fn);
  }
  fn(dir);
}

// mkdir <base>/sluice/job_<id>, or job_<id>.<stepd pid> when that name is taken: by a
// leftover, a stale copy of the job, or another agent's job of the same id on this host
// (several clusters or multiple agents per host). A taken name is never removed and
// reused: its owner may have created it a moment ago and not yet moved its job in.
std::string MakeJobCgroup(const std::string& base, int64_t job_id) {
  std::string parent = base + "/sluice";
  if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) return "";
  std::string dir = parent + "/job_" + std::to_string(job_id);
  if (::mkdir(dir.c_str(), 0755) == 0) return dir;
  if (errno != EEXIST) return "";
  dir += "." + std::to_string(::getpid());
  return ::mkdir(dir.c_str(), 0755) == 0 ? dir : "";
}

// Removes empty job_<id>.<pid> cgroups whose stepd is gone (it was killed before it could
// remove its own); rmdir refuses a cgroup that still has processes.
void PruneOrphans(const std::string& base) {
  std::string parent = base + "/sluice";
  DIR* d = ::opendir(parent.c_str());
  if (d == nullptr) return;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    size_t dot = name.rfind('.');
    if (name.rfind("job_", 0) != 0 || dot == std::string::npos) continue;
    pid_t owner = static_cast<pid_t>(std::atoi(name.c_str() + dot + 1));
    if (owner > 0 && ::kill(owner, 0) != 0 && errno == ESRCH) {
      ForEachCgroup(parent + "/" + name, [](const std::string& dir) { ::rmdir(dir.c_str()); });
    }
  }
  ::closedir(d);
}

// Parses "/proc/<pid>/stat": state char and ppid.
bool ReadStat(pid_t pid, char* state, pid_t* ppid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t rp = line.rfind(')');
  if (rp == std::string::npos) return false;
  std::istringstream rest(line.substr(rp + 1));
  rest >> *state >> *ppid;
  return !rest.fail();
}

bool IsLive(pid_t pid) {
  char state = 0;
  pid_t ppid = 0;
  return ReadStat(pid, &state, &ppid) && state != 'Z' && state != 'X';
}

int64_t ReadKeyValue(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  int64_t v = 0;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

// Whether `pid` has a child (live or zombie), from /proc/<pid>/task/<tid>/children of each
// of its threads; nullopt where the kernel does not list children.
std::optional<bool> HasChildren(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(tasks.c_str());
  if (d == nullptr) return std::nullopt;
  std::optional<bool> any;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(tasks + "/" + e->d_name + "/children");
    if (!in) continue;
    pid_t child = 0;
    any = (in >> child) ? true : any.value_or(false);
    if (*any) break;
  }
  ::closedir(d);
  return any;
}

}  // namespace

std::vector<pid_t> DescendantsOf(pid_t root) {
  // A process without children has no descendants: the usual answer once a job's processes
  // are gone, without reading every process's stat.
  if (HasChildren(root) == false) return {};
  std::multimap<pid_t, pid_t> children;
  std::set<pid_t> live;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return {};
  while (struct dirent* e = ::readdir(d)) {
    pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    char state = 0;
    pid_t ppid = 0;
    if (pid <= 0 || !ReadStat(pid, &state, &ppid)) continue;
    children.emplace(ppid, pid);
    if (state != 'Z' && state != 'X') live.insert(pid);
  }
  ::closedir(d);
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it) {
      if (live.count(it->second)) out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

std::unique_ptr<ProcessTracker> ProcessTracker::Create(int64_t job_id, const CgroupRoots& roots,
                                                       bool batch_leaf) {
  std::unique_ptr<ProcessTracker> t(new ProcessTracker());
  if (!roots.v2.empty() && ::access((roots.v2 + "/cgroup.controllers").c_str(), F_OK) == 0) {
    // Delegate the memory controller down to sluice/ (best effort).
    WriteText(roots.v2 + "/cgroup.subtree_control", "+memory");
    ::mkdir((roots.v2 + "/sluice").c_str(), 0755);
    WriteText(roots.v2 + "/sluice/cgroup.subtree_control", "+memory");
    PruneOrphans(roots.v2);
    std::string dir = MakeJobCgroup(roots.v2, job_id);
    if (!dir.empty()) {
      t->mode_ = Mode::kCgroupV2;
      t->dir_ = dir;
      t->fork_dir_ = dir;
      if (batch_leaf && ::mkdir((dir + "/batch").c_str(), 0755) == 0) {
        WriteText(dir + "/cgroup.subtree_control", "+memory");  // for the steps' limits
        t->fork_dir_ = dir + "/batch";
      }
    }
  }
  if (t->dir_.empty() && !roots.v1_memory.empty() &&
      ::access((roots.v1_memory + "/cgroup.procs").c_str(), W_OK) == 0) {
    PruneOrphans(roots.v1_memory);
    std::string dir = MakeJobCgroup(roots.v1_memory, job_id);
    if (!dir.empty()) {
      t->mode_ = Mode::kCgroupV1;
      t->dir_ = dir;
      t->fork_dir_ = dir;
    }
  }
  return t;
}

std::unique_ptr<ProcessTracker> ProcessTracker::CreateStep(const std::string& job_dir,
                                                           const std::string& name) {
  std::unique_ptr<ProcessTracker> t(new ProcessTracker());
  std::string dir = job_dir + "/" + name;
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) {
    bool v2 = ::access((job_dir + "/cgroup.controllers").c_str(), F_OK) == 0;
    t->mode_ = v2 ? Mode::kCgroupV2 : Mode::kCgroupV1;
    t->dir_ = dir;
    t->fork_dir_ = dir;
  } else {
    t->fork_dir_ = job_dir;  // no step cgroup: at least the job's (best effort)
  }
  return t;
}

ProcessTracker::~ProcessTracker() = default;

Status ProcessTracker::SetMemoryLimit(int64_t bytes) {
  if (dir_.empty() || bytes <= 0) return Status::Ok();
  std::string file = mode_ == Mode::kCgroupV2 ? "/memory.max" : "/memory.limit_in_bytes";
  if (!WriteText(dir_ + file, std::to_string(bytes))) {
    return Internal("cannot set memory limit in " + dir_ + ": " + std::strerror(errno));
  }
  if (mode_ == Mode::kCgroupV2) WriteText(dir_ + "/memory.swap.max", "0");
  if (mode_ == Mode::kCgroupV1)
    WriteText(dir_ + "/memory.memsw.limit_in_bytes", std::to_string(bytes));
  return Status::Ok();
}

Status ProcessTracker::DenyDevices(const CgroupRoots& roots,
                                   const std::vector<std::string>& files) {
  if (files.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(std::vector<DeviceId> denied, DeviceIdsOf(files));
  if (mode_ == Mode::kCgroupV2) return AttachDeviceProgram(dir_, denied);
  if (mode_ == Mode::kCgroupV1 && !roots.v1_devices.empty() &&
      dir_.rfind(roots.v1_memory + "/", 0) == 0) {
    std::string dir = roots.v1_devices + dir_.substr(roots.v1_memory.size());
    RETURN_IF_ERROR(DenyInDevicesCgroup(dir, denied));
    devices_dir_ = dir;
    return Status::Ok();
  }
  return FailedPrecondition("ConstrainDevices=yes, but the job has no cgroup on this node");
}

pid_t ProcessTracker::ForkChild() const {
  if (devices_dir_.empty()) return ForkInto(fork_dir_);
  return ForkInto(fork_dir_, {devices_dir_});
}

std::vector<pid_t> ProcessTracker::CgroupPids() const {
  std::vector<pid_t> out;
  if (!dir_.empty())
    ForEachCgroup(dir_, [&](const std::string& dir) {
      std::ifstream in(dir + "/cgroup.procs");
      for (pid_t p; in >> p;) out.push_back(p);
    });
  return out;
}

int ProcessTracker::SignalAll(int sig) {
  std::set<pid_t> targets;
  for (pid_t p : CgroupPids()) targets.insert(p);
  for (pid_t p : DescendantsOf(::getpid())) targets.insert(p);
  if (leader_ > 0) ::kill(-leader_, sig);
  int n = 0;
  for (pid_t p : targets) {
    if (p == ::getpid()) continue;
    // Members of the leader's group already got it: a second kill would run a trap twice.
    if (leader_ > 0 && ::getpgid(p) == leader_) {
      ++n;
    } else if (::kill(p, sig) == 0) {
      ++n;
    }
  }
  return n;
}

std::vector<pid_t> ProcessTracker::Alive() const {
  std::set<pid_t> out;
  for (pid_t p : CgroupPids()) {
    if (IsLive(p)) out.insert(p);
  }
  for (pid_t p : DescendantsOf(::getpid())) out.insert(p);
  return {out.begin(), out.end()};
}

bool ProcessTracker::OomKilled() const {
  if (dir_.empty()) return false;
  if (mode_ == Mode::kCgroupV2) return ReadKeyValue(dir_ + "/memory.events", "oom_kill") > 0;
  return ReadKeyValue(dir_ + "/memory.oom_control", "oom_kill") > 0;
}

void ProcessTracker::Remove() {
  // Deepest first. The kernel may list a just-reaped process for a moment: retry briefly.
  for (const std::string& top : {dir_, devices_dir_}) {
    if (top.empty()) continue;
    ForEachCgroup(top, [](const std::string& dir) {
      for (int i = 0; i < 20 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i) {
        ::usleep(10'000);
      }
    });
  }
}

}  // namespace sluice
