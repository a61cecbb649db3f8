#include "local/node_kill.h"

#include <dirent.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {
namespace {

std::string Cmdline(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  for (char& c : s) c = c == '\0' ? ' ' : c;
  return s;
}

pid_t ParentOf(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(f, line);
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  char state = 0;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

std::vector<pid_t> AllPids() {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (struct dirent* e = ::readdir(d)) {
    pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid > 0) out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

}  // namespace

int KillStepdTrees(const std::string& spool_prefix) {
  std::multimap<pid_t, pid_t> children;
  std::set<pid_t> roots;
  for (pid_t pid : AllPids()) {
    children.emplace(ParentOf(pid), pid);
    std::string cmd = Cmdline(pid);
    if (cmd.find("sluice-stepd") != std::string::npos && cmd.find(spool_prefix) != std::string::npos) {
      roots.insert(pid);
    }
  }
  std::set<pid_t> victims;
  std::vector<pid_t> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    if (!victims.insert(p).second) continue;
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it) todo.push_back(it->second);
  }
  for (pid_t p : roots) ::kill(p, SIGSTOP);  // no reaping or re-spawning while we kill
  int n = 0;
  for (pid_t p : victims) n += ::kill(p, SIGKILL) == 0 ? 1 : 0;
  return n;
}

int KillNodeProcesses(LocalCluster& cluster, int node_index) {
  cluster.KillAgent(node_index, SIGKILL);
  return KillStepdTrees(cluster.state_dir() + "/spool/" + cluster.NodeName(node_index) + "/");
}

}  // namespace sluice
