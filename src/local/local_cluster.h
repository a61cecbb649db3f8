// LocalCluster: a controller and N node agents on loopback, for `sluice up` and the
// integration tests. Writes a config into the state dir, starts the daemons detached
// (pid files in <state>/run, logs in <state>/log), waits until every node is idle.
// With `agents`, a few sluiced processes serve all nodes between them (a cluster of
// thousands of nodes on one machine).
// Ports are picked free at `Up()`. On a state dir whose daemons partly still run, `Up()`
// keeps the config they use and starts only what is missing (a node's agent runs while
// its spool lock is held, common/pid_lock.h). `Down()` stops every process of the
// cluster it finds: the pid files, every sluicectld/sluiced started with its config,
// every holder of a spool lock under <state>/spool, then the jobs' stepds.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/status.h"

namespace sluice {

class IsolatedNet;

struct LocalClusterOptions {
  int nodes = 4;
  int gpus_per_node = 8;
  int cpus_per_node = 16;
  int64_t mem_per_node_mb = 64000;
  std::string state_dir = "sluice-local";
  std::string bin_dir;  // where sluicectld/sluiced live; default: next to this program
  std::string agent_bin = "sluiced";  // tests: "sluiced-faults" (test-only fault hooks)
  // Tests: node i's agent from another binary (rolling upgrades: "sluiced-proto-prev").
  std::map<int, std::string> agent_bin_of;
  std::string ctld_bin = "sluicectld";  // tests: "sluicectld-faults"
  std::string cluster_name = "local";
  int slurmd_timeout_s = 300;
  int kill_wait_s = 30;
  std::vector<std::string> extra_config_lines;
  std::map<std::string, std::string> extra_files;  // name -> text, written beside the config
  // AuthType=auth/munge: start a private munged in <state>/munge (fresh key) and point
  // the config's AuthInfo at its socket; Down() stops it.
  bool munge = false;
  // Each node in namespaces of its own (local/isolated_net.h): own hostname, address and
  // /etc/hosts. Needs root; without it Up() says so and starts on loopback.
  bool isolated = false;
  // 0: one sluiced per node. K > 0: K sluiced processes, each serving a contiguous share
  // of the nodes (sluiced --nodes, noded/hosted_node.h) on one port: an emulated large
  // cluster. Not with `isolated`.
  int agents = 0;
  // K > 1: K controllers (SlurmctldHost=ctl1(127.0.0.1) ... ctlK(127.0.0.K), one port)
  // on one PostgreSQL: one leads, the others stand by (docs/high-availability.md). Without
  // a StateStorageType line in extra_config_lines, Up() starts a private server
  // (storage/pg_server.h) in a /tmp directory that <state>/pgsql.path names; Down() stops
  // it and its data stays for the next Up().
  int controllers = 1;
};

// The directory of the private PostgreSQL that `up --ha` started for the cluster whose
// state is in `state_dir` (<state>/pgsql.path names it; none: ""). Its data outlives
// Down(), for the next Up(); a test or benchmark that is done removes it.
std::string PrivatePgDir(const std::string& state_dir);

class LocalCluster {
 public:
  explicit LocalCluster(LocalClusterOptions opts);

  Status Up(int timeout_ms = 30'000);  // write config, start everything, wait for idle nodes
  Status Down();  // stop every daemon of the cluster (agents first), then the jobs' stepds
  static Status DownStateDir(const std::string& state_dir);

  Status StartController();  // every controller (options.controllers)
  // Controller k (0-based) of a cluster with several: start, signal, its pid (0: none).
  Status StartControllerAt(int k);
  void KillControllerAt(int k, int sig);
  pid_t ControllerPid(int k) const;
  std::string ControllerLogPath(int k) const;  // its log (<state>/log/sluicectld[-ctlK].log)
  // The controller k whose lease is live in the state database (state/pgsql; -1: none).
  int LeadingController() const;
  // Its SlurmctldHost name ("ctl1", ...; "localhost" with one controller).
  std::string ControllerName(int k) const;
  // Node i's agent: `bin`, else options.agent_bin_of[i], else options.agent_bin.
  Status StartAgent(int i, const std::string& bin = "");
  // Emulated clusters (options.agents > 0): agent process g and the nodes it serves.
  Status StartAgentGroup(int g);
  void KillAgentGroup(int g, int sig);
  // The hostlist of the nodes agent process g serves ("" when there is no such group).
  std::string AgentGroupNodes(int g) const;
  // Sends `sig` to a daemon (SIGKILL to simulate a crash); returns once it is gone.
  void KillController(int sig);  // every controller
  void KillAgent(int i, int sig);
  Status WaitNodesIdle(int timeout_ms);
  // Isolated clusters only: takes node i's network link down (a network cut) or up.
  Status SetNodeLink(int i, bool up);
  // Isolated clusters with several controllers (each in namespaces of its own, the
  // database reached over the network): controller k's link down (its machine lost: no
  // agent, command or database reaches it) or up; or node i cut from it and it from node
  // i (a partition; the database, the commands and the other nodes still reach it).
  Status SetControllerLink(int k, bool up);
  Status SetControllerReachesNode(int k, int i, bool reachable);
  // Whether the cluster in the state dir runs its nodes in namespaces (isolated_net.h).
  bool isolated() const;

  const std::string& conf_path() const { return conf_path_; }
  const std::string& state_dir() const { return opts_.state_dir; }
  std::string NodeName(int i) const;
  std::string BinPath(const std::string& name) const;
  // host:port of the controller's client API (read from the written config).
  std::string CtldAddress() const;
  // The controller's Prometheus endpoint (MetricsPort=), "" when it has none.
  std::string MetricsUrl() const;
  // The web dashboard on the same port, "" when there is none.
  std::string DashboardUrl() const;
  // Node `node`'s agent metrics (sluiced --metrics-port; the ports `up` chose are in
  // <state dir>/agent_metrics_ports), "" when it has none.
  std::string AgentMetricsUrl(const std::string& node) const;
  // sluicerestd's base URL (RestPort=), "" when it has none; the JWT key it takes tokens of
  // (AuthAltParameters=jwt_key=, in the state dir).
  std::string RestUrl() const;
  std::string RestHost(const Config& config) const;  // where sluicerestd listens
  std::string JwtKeyPath() const;
  Status StartRestd();
  std::string AgentMetricsPortsPath() const;
  int AgentMetricsPort(const std::string& node) const;  // 0: none
  // Environment entries that point the commands at this cluster.
  std::vector<std::string> Env() const { return {"SLUICE_CONF=" + conf_path_}; }

 private:
  Status WriteConfig();
  // `up --ha` without a StateStorageType line: the controllers share a private PostgreSQL.
  bool WantsPrivatePg() const;
  // Starts it (on an isolated cluster also listening at `tcp_addr`, the bridge); returns its
  // StateStorage* config lines.
  Expected<std::vector<std::string>> StartPrivatePg(const std::string& tcp_addr = "");
  // The SlurmctldHost lines: one per controller on loopback; on an isolated cluster the
  // host's own address, or with several controllers each one's namespace.
  std::string CtldHostLines(const IsolatedNet* net) const;
  // Controller k's place in the isolated network (-1: none).
  int ControllerNetIndex(const IsolatedNet& net, int k) const;
  // The NodeName lines of an emulated cluster (one per agent process) and agent_groups.
  Status WriteAgentGroups(std::ostream& config, const std::function<Expected<int>()>& unique_port);
  // Up() on a state dir where some daemon still runs: start only what is missing.
  Status StartMissing(int timeout_ms);
  bool AnyDaemonRunning() const;
  bool ControllerRunning() const;
  bool AgentRunning(const std::string& node) const;
  std::string PidFile(const std::string& who) const;
  // <state>/agent_groups: one line "agentG HOSTLIST" per agent process of an emulated
  // cluster (absent: one agent per node).
  std::string AgentGroupsPath() const;
  std::vector<std::string> AgentGroups() const;
  Status StartDaemon(const std::string& who, const std::vector<std::string>& argv);
  // The agent of `node` (inside its namespaces on an isolated cluster).
  Status StartAgentOf(const std::string& node, const std::string& bin);

  LocalClusterOptions opts_;
  std::string conf_path_;
  std::string munge_socket_;                   // set by Up() when opts_.munge
  std::vector<std::string> private_pg_lines_;  // set by Up(): StartPrivatePg()
};

// Directory of the running executable (for finding sibling binaries).
std::string SelfDir();
// This host's name, without its domain.
std::string HostName();

}  // namespace sluice
