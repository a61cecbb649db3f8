#include "local/node_kill.h"

#include <signal.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/hostlist.h"
#include "local/proc_scan.h"

namespace sluice {
namespace {

std::string Cmdline(pid_t pid) {
  std::string s;
  for (const std::string& arg : ArgvOf(pid)) s += arg + " ";
  return s;
}

}  // namespace

int KillStepdTrees(const std::string& spool_prefix) {
  std::multimap<pid_t, pid_t> children;
  std::set<pid_t> roots;
  for (pid_t pid : AllPids()) {
    children.emplace(ParentOf(pid), pid);
    std::string cmd = Cmdline(pid);
    if (cmd.find("sluice-stepd") != std::string::npos &&
        cmd.find(spool_prefix) != std::string::npos) {
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

int KillAgentGroupProcesses(LocalCluster& cluster, int group) {
  auto nodes = ExpandHostlist(cluster.AgentGroupNodes(group));
  cluster.KillAgentGroup(group, SIGKILL);
  int n = 0;
  if (!nodes.ok()) return n;
  for (const std::string& node : *nodes)
    n += KillStepdTrees(cluster.state_dir() + "/spool/" + node + "/");
  return n;
}

}  // namespace sluice
