#include "local/local_cluster.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "client.grpc.pb.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/hostlist.h"
#include "common/pid_lock.h"
#include "local/isolated_net.h"
#include "local/node_kill.h"
#include "local/proc_scan.h"
#include "local/process.h"
#include "rpc/credential.h"
#include "rpc/grpc_limits.h"
#include "rpc/ident_server.h"
#include "rpc/munged_process.h"
#include "rpc/protocol.h"
#include "storage/pg_lease.h"
#include "storage/pg_server.h"
#include "storage/state_dump.h"

namespace fs = std::filesystem;

namespace sluice {

std::string HostName() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string h = host;
  return h.substr(0, h.find('.'));
}

std::string SelfDir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "." : p.parent_path().string();
}

namespace {

pid_t ReadPid(const std::string& path) {
  std::ifstream f(path);
  pid_t pid = 0;
  f >> pid;
  return pid;
}

// 32 random bytes, mode 0600, as Slurm's jwt.html makes the key (kept when it exists).
Status WriteJwtKey(const std::string& path) {
  if (fs::exists(path)) return Status::Ok();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << RandomBytes(32);
    if (!f) return Internal("cannot write " + tmp);
  }
  fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write);
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Internal("cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

}  // namespace

std::string PrivatePgDir(const std::string& state_dir) {
  std::ifstream f(state_dir + "/pgsql.path");
  std::string dir;
  std::getline(f, dir);
  return dir;
}

LocalCluster::LocalCluster(LocalClusterOptions opts) : opts_(std::move(opts)) {
  opts_.state_dir = fs::absolute(opts_.state_dir).lexically_normal().string();
  if (opts_.bin_dir.empty()) opts_.bin_dir = SelfDir();
  conf_path_ = opts_.state_dir + "/sluice.conf";
}

std::string LocalCluster::NodeName(int i) const {
  int width = opts_.nodes >= 1000 ? 4 : opts_.nodes >= 100 ? 3 : 2;
  return fmt::format("node{:0{}}", i + 1, width);
}

std::string LocalCluster::BinPath(const std::string& name) const {
  return opts_.bin_dir + "/" + name;
}

std::string LocalCluster::CtldAddress() const {
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok()) return "";
  return config->ctld_host + ":" + std::to_string(config->ctld_port);
}

std::string LocalCluster::MetricsUrl() const {
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok() || config->metrics_port == 0) return "";
  return "http://" + config->ctld_host + ":" + std::to_string(config->metrics_port) + "/metrics";
}

std::string LocalCluster::DashboardUrl() const {
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok() || config->metrics_port == 0) return "";
  return "http://" + config->ctld_host + ":" + std::to_string(config->metrics_port) + "/dashboard/";
}

std::string LocalCluster::RestUrl() const {
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok() || config->rest_port == 0) return "";
  return "http://" + RestHost(*config) + ":" + std::to_string(config->rest_port);
}

std::string LocalCluster::RestHost(const Config& config) const {
  // On an isolated cluster the controllers' addresses are in their namespaces: sluicerestd
  // stays on this host, on the bridge.
  auto net = IsolatedNet::Load(opts_.state_dir);
  return net.ok() && config.ctld_hosts.size() > 1 ? net->HostAddr() : config.ctld_host;
}

std::string LocalCluster::JwtKeyPath() const { return opts_.state_dir + "/state/jwt_hs256.key"; }

std::string LocalCluster::PidFile(const std::string& who) const {
  return opts_.state_dir + "/run/" + who + ".pid";
}

Status LocalCluster::WriteConfig() {
  std::ostringstream c;
  // FreeTcpPort() releases the port it found, so it can hand out the same one twice:
  // every daemon of this cluster gets a distinct one.
  std::set<int> used;
  auto unique_port = [&used]() -> Expected<int> {
    for (int tries = 0; tries < 100; ++tries) {
      ASSIGN_OR_RETURN(int p, FreeTcpPort());
      if (used.insert(p).second) return p;
    }
    return Internal("no free TCP port");
  };
  ASSIGN_OR_RETURN(int ctld_port, unique_port());
  ASSIGN_OR_RETURN(int metrics_port, unique_port());
  ASSIGN_OR_RETURN(int rest_port, unique_port());
  RETURN_IF_ERROR(WriteJwtKey(JwtKeyPath()));
  std::optional<IsolatedNet> net;
  if (opts_.isolated) {
    std::vector<std::string> names;
    for (int i = 0; i < opts_.nodes; ++i) names.push_back(NodeName(i));
    for (int k = 0; opts_.controllers > 1 && k < opts_.controllers; ++k)
      names.push_back(ControllerName(k));  // after the nodes: NodeAddr(i) stays node i's
    ASSIGN_OR_RETURN(net, IsolatedNet::Create(opts_.state_dir, names, HostName()));
    if (WantsPrivatePg()) {
      ASSIGN_OR_RETURN(private_pg_lines_, StartPrivatePg(net->HostAddr()));
    }
  }
  c << (net ? "# Written by `sluice up --isolated`: each node in namespaces of its own.\n"
            : "# Written by `sluice up`: a local cluster on loopback.\n")
    << "ClusterName=" << opts_.cluster_name << "\n"
    << CtldHostLines(net ? &*net : nullptr) << "SlurmctldPort=" << ctld_port << "\n"
    << "MetricsPort=" << metrics_port << "\n"
    << "RestPort=" << rest_port << "\n"
    << "AuthAltTypes=auth/jwt\n"
    << "AuthAltParameters=jwt_key=" << JwtKeyPath() << "\n"
    << "StateSaveLocation=" << opts_.state_dir << "/state\n"
    << "SlurmdSpoolDir=" << opts_.state_dir << "/spool/%n\n"
    << "SlurmdTimeout=" << opts_.slurmd_timeout_s << "\n"
    << "KillWait=" << opts_.kill_wait_s << "\n"
    << "GresTypes=gpu\n";
  if (!munge_socket_.empty()) {
    c << "AuthType=auth/munge\nAuthInfo=socket=" << munge_socket_ << "\n";
  }
  for (const auto& line : opts_.extra_config_lines) c << line << "\n";
  for (const auto& line : private_pg_lines_) c << line << "\n";
  std::ofstream agent_metrics(AgentMetricsPortsPath());
  if (opts_.agents > 0) {
    RETURN_IF_ERROR(WriteAgentGroups(c, unique_port));
  }
  for (int i = 0; i < opts_.nodes && opts_.agents == 0; ++i) {
    ASSIGN_OR_RETURN(int port, unique_port());
    ASSIGN_OR_RETURN(int metrics, unique_port());
    agent_metrics << NodeName(i) << " " << metrics << "\n";
    c << "NodeName=" << NodeName(i) << " NodeAddr=" << (net ? net->NodeAddr(i) : "127.0.0.1")
      << " Port=" << port << " CPUs=" << opts_.cpus_per_node
      << " RealMemory=" << opts_.mem_per_node_mb;
    if (opts_.gpus_per_node > 0) c << " Gres=gpu:" << opts_.gpus_per_node;
    c << " State=UNKNOWN\n";
  }
  std::string all = opts_.nodes == 1 ? NodeName(0)
                                     : fmt::format("node[{}-{}]", NodeName(0).substr(4),
                                                   NodeName(opts_.nodes - 1).substr(4));
  c << "PartitionName=gpu Nodes=" << all << " Default=YES MaxTime=INFINITE State=UP\n";
  agent_metrics.close();
  if (!agent_metrics) return Internal("cannot write " + AgentMetricsPortsPath());
  std::ofstream f(conf_path_);
  f << c.str();
  f.close();
  if (!f) return Internal("cannot write " + conf_path_);
  for (const auto& [name, text] : opts_.extra_files) {
    const std::string path = opts_.state_dir + "/" + name;
    std::ofstream extra(path);
    extra << text;
    extra.close();
    if (!extra) return Internal("cannot write " + path);
  }
  return Status::Ok();
}

std::string LocalCluster::AgentGroupsPath() const { return opts_.state_dir + "/agent_groups"; }

std::vector<std::string> LocalCluster::AgentGroups() const {
  std::vector<std::string> groups;
  std::ifstream in(AgentGroupsPath());
  std::string name, nodes;
  while (in >> name >> nodes) groups.push_back(nodes);
  return groups;
}

std::string LocalCluster::AgentGroupNodes(int g) const {
  auto groups = AgentGroups();
  return g >= 0 && g < static_cast<int>(groups.size()) ? groups[g] : "";
}

Status LocalCluster::WriteAgentGroups(std::ostream& c,
                                      const std::function<Expected<int>()>& unique_port) {
  std::ofstream groups(AgentGroupsPath());
  const int k = std::min(opts_.agents, opts_.nodes);
  for (int g = 0; g < k; ++g) {
    std::vector<std::string> share;
    for (int i = opts_.nodes * g / k; i < opts_.nodes * (g + 1) / k; ++i)
      share.push_back(NodeName(i));
    const std::string names = CompressHostlist(share);
    ASSIGN_OR_RETURN(int port, unique_port());
    groups << "agent" << g << " " << names << "\n";
    c << "NodeName=" << names << " NodeAddr=127.0.0.1 Port=" << port
      << " CPUs=" << opts_.cpus_per_node << " RealMemory=" << opts_.mem_per_node_mb;
    if (opts_.gpus_per_node > 0) c << " Gres=gpu:" << opts_.gpus_per_node;
    c << " State=UNKNOWN\n";
  }
  groups.close();
  if (!groups) return Internal("cannot write " + AgentGroupsPath());
  return Status::Ok();
}

Status LocalCluster::StartAgentGroup(int g) {
  const std::string nodes = AgentGroupNodes(g);
  if (nodes.empty()) return NotFound(fmt::format("no agent group {}", g));
  return StartDaemon(fmt::format("agent{}", g),
                     {BinPath(opts_.agent_bin), "-f", conf_path_, "--nodes", nodes});
}

void LocalCluster::KillAgentGroup(int g, int sig) {
  StopProcess(ReadPid(PidFile(fmt::format("agent{}", g))), sig, 5000);
}

Status LocalCluster::StartDaemon(const std::string& who, const std::vector<std::string>& argv) {
  ASSIGN_OR_RETURN(pid_t pid, SpawnDetached(argv, opts_.state_dir + "/log/" + who + ".log"));
  std::ofstream(PidFile(who)) << pid << "\n";
  return Status::Ok();
}

std::string LocalCluster::CtldHostLines(const IsolatedNet* net) const {
  if (net && opts_.controllers == 1)
    return "SlurmctldHost=" + HostName() + "(" + net->HostAddr() + ")\n";
  std::string out;
  for (int k = 0; k < opts_.controllers; ++k) {
    const std::string addr =
        net ? net->NodeAddr(ControllerNetIndex(*net, k)) : "127.0.0." + std::to_string(k + 1);
    out += "SlurmctldHost=" + ControllerName(k) + "(" + addr + ")\n";
  }
  return out;
}

int LocalCluster::ControllerNetIndex(const IsolatedNet& net, int k) const {
  const auto& names = net.nodes();
  auto it = std::find(names.begin(), names.end(), ControllerName(k));
  return opts_.controllers > 1 && it != names.end() ? static_cast<int>(it - names.begin()) : -1;
}

std::string LocalCluster::ControllerName(int k) const {
  return opts_.controllers > 1 ? "ctl" + std::to_string(k + 1) : "localhost";
}

// Controller k's pid file and log: "sluicectld", then "sluicectld-ctl2", ...
static std::string ControllerWho(int k) {
  return k == 0 ? "sluicectld" : "sluicectld-ctl" + std::to_string(k + 1);
}

Status LocalCluster::StartController() {
  for (int k = 0; k < opts_.controllers; ++k) RETURN_IF_ERROR(StartControllerAt(k));
  return Status::Ok();
}

Status LocalCluster::StartControllerAt(int k) {
  std::vector<std::string> argv = {BinPath(opts_.ctld_bin), "-f", conf_path_};
  if (opts_.controllers > 1) argv.insert(argv.end(), {"-N", ControllerName(k)});
  auto net = IsolatedNet::Load(opts_.state_dir);
  const int at = net.ok() ? ControllerNetIndex(*net, k) : -1;
  if (at < 0) return StartDaemon(ControllerWho(k), argv);
  std::vector<std::string> enter{BinPath("sluice"), "enter-node",     net->Netns(at),
                                 ControllerName(k), net->HostsFile(), "--"};
  argv.insert(argv.begin(), enter.begin(), enter.end());
  return StartDaemon(ControllerWho(k), argv);
}

void LocalCluster::KillControllerAt(int k, int sig) { StopProcess(ControllerPid(k), sig, 5000); }

std::string LocalCluster::ControllerLogPath(int k) const {
  return opts_.state_dir + "/log/" + ControllerWho(k) + ".log";
}

pid_t LocalCluster::ControllerPid(int k) const {
  pid_t pid = ReadPid(PidFile(ControllerWho(k)));
  return ProcessAlive(pid) ? pid : 0;
}

int LocalCluster::LeadingController() const {
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok()) return -1;
  auto lease = storage::PgLease::Open(storage::StateConnString(*config));
  if (!lease.ok()) return -1;
  auto cur = (*lease)->Current();
  for (int k = 0; cur.ok() && cur->live && k < opts_.controllers; ++k)
    if (cur->holder == ControllerName(k)) return k;
  return -1;
}

bool LocalCluster::WantsPrivatePg() const {
  return opts_.controllers > 1 &&
         std::none_of(opts_.extra_config_lines.begin(), opts_.extra_config_lines.end(),
                      [](const std::string& l) { return l.starts_with("StateStorageType="); });
}

Expected<std::vector<std::string>> LocalCluster::StartPrivatePg(const std::string& tcp_addr) {
  // Under /tmp: the socket's path stays short, and as root the `postgres` user that runs
  // the server can reach it (a state dir under /root it could not).
  std::string dir = PrivatePgDir(opts_.state_dir);
  if (dir.empty() || !fs::is_directory(dir)) {
    char tmpl[] = "/tmp/sluice-pg-XXXXXX";
    if (!mkdtemp(tmpl)) return Internal(std::string("mkdtemp: ") + strerror(errno));
    dir = tmpl;
    std::ofstream(opts_.state_dir + "/pgsql.path") << dir << "\n";
  }
  storage::PgServer server(dir, tcp_addr);
  if (Status st = server.Start(); !st.ok())
    return Unavailable("the controllers' PostgreSQL did not start: " + st.message());
  return server.StateStorageLines();
}

Status LocalCluster::StartRestd() {
  ASSIGN_OR_RETURN(Config config, LoadConfigFile(conf_path_));
  std::vector<std::string> argv{BinPath("sluicerestd"), "-f", conf_path_};
  if (config.rest_port > 0)
    argv.push_back(RestHost(config) + ":" + std::to_string(config.rest_port));
  return StartDaemon("sluicerestd", argv);
}

Status LocalCluster::StartAgent(int i, const std::string& bin) {
  auto it = opts_.agent_bin_of.find(i);
  return StartAgentOf(NodeName(i), !bin.empty()                     ? bin
                                   : it != opts_.agent_bin_of.end() ? it->second
                                                                    : opts_.agent_bin);
}

std::string LocalCluster::AgentMetricsPortsPath() const {
  return opts_.state_dir + "/agent_metrics_ports";
}

int LocalCluster::AgentMetricsPort(const std::string& node) const {
  std::ifstream in(AgentMetricsPortsPath());
  std::string name;
  int port = 0;
  while (in >> name >> port) {
    if (name == node) return port;
  }
  return 0;
}

std::string LocalCluster::AgentMetricsUrl(const std::string& node) const {
  const int port = AgentMetricsPort(node);
  auto net = IsolatedNet::Load(opts_.state_dir);
  std::string addr = "127.0.0.1";
  if (net.ok()) {
    const auto& nodes = net->nodes();
    auto it = std::find(nodes.begin(), nodes.end(), node);
    if (it != nodes.end()) addr = net->NodeAddr(static_cast<int>(it - nodes.begin()));
  }
  return port > 0 ? "http://" + addr + ":" + std::to_string(port) + "/metrics" : "";
}

Status LocalCluster::StartAgentOf(const std::string& node, const std::string& bin) {
  std::vector<std::string> agent{BinPath(bin), "-f", conf_path_, "-N", node};
  if (const int port = AgentMetricsPort(node); port > 0) {
    agent.push_back("--metrics-port");
    agent.push_back(std::to_string(port));
  }
  auto net = IsolatedNet::Load(opts_.state_dir);
  if (!net.ok()) return StartDaemon(node, agent);
  const auto& nodes = net->nodes();
  auto it = std::find(nodes.begin(), nodes.end(), node);
  if (it == nodes.end()) return NotFound("node " + node + " is not in the isolated network");
  std::vector<std::string> argv{
      BinPath("sluice"), "enter-node", net->Netns(static_cast<int>(it - nodes.begin())), node,
      net->HostsFile(),  "--"};
  argv.insert(argv.end(), agent.begin(), agent.end());
  return StartDaemon(node, argv);
}

bool LocalCluster::isolated() const { return IsolatedNet::Load(opts_.state_dir).ok(); }

Status LocalCluster::SetNodeLink(int i, bool up) {
  ASSIGN_OR_RETURN(IsolatedNet net, IsolatedNet::Load(opts_.state_dir));
  return net.SetLink(i, up);
}

Status LocalCluster::SetControllerLink(int k, bool up) {
  ASSIGN_OR_RETURN(IsolatedNet net, IsolatedNet::Load(opts_.state_dir));
  const int at = ControllerNetIndex(net, k);
  if (at < 0) return InvalidArgument("controller " + ControllerName(k) + " has no namespace");
  return net.SetLink(at, up);
}

Status LocalCluster::SetControllerReachesNode(int k, int i, bool reachable) {
  ASSIGN_OR_RETURN(IsolatedNet net, IsolatedNet::Load(opts_.state_dir));
  const int at = ControllerNetIndex(net, k);
  if (at < 0) return InvalidArgument("controller " + ControllerName(k) + " has no namespace");
  return net.SetReachable(at, i, reachable);
}

Status LocalCluster::Up(int timeout_ms) {
  for (const char* sub : {"", "/run", "/log", "/state", "/spool"}) {
    std::error_code ec;
    fs::create_directories(opts_.state_dir + sub, ec);
    if (ec) return Internal("cannot create " + opts_.state_dir + sub + ": " + ec.message());
  }
  fs::permissions(opts_.state_dir, fs::perms(0755));
  if (fs::exists(conf_path_) && AnyDaemonRunning()) return StartMissing(timeout_ms);
  // A network left over by a cluster that was not taken down.
  if (auto old = IsolatedNet::Load(opts_.state_dir); old.ok()) RETURN_IF_ERROR(old->Remove());
  if (opts_.isolated && opts_.agents > 0)
    return InvalidArgument("--agents (emulated nodes) and --isolated exclude each other");
  std::error_code ignored;
  fs::remove(AgentGroupsPath(), ignored);  // written again by WriteConfig when wanted
  if (opts_.isolated && ::geteuid() != 0) {
    std::fprintf(stderr,
                 "sluice: --isolated needs root (network namespaces): the nodes share this "
                 "host's name and loopback\n");
    opts_.isolated = false;
  }
  if (opts_.munge) {
    ASSIGN_OR_RETURN(MungedPaths m, StartMunged(opts_.state_dir + "/munge"));
    munge_socket_ = m.socket;
  }
  // (An isolated cluster's starts with its network, in WriteConfig.)
  if (WantsPrivatePg() && !opts_.isolated) {
    ASSIGN_OR_RETURN(private_pg_lines_, StartPrivatePg());
  }
  RETURN_IF_ERROR(WriteConfig());
  RETURN_IF_ERROR(StartController());
  // Agents need the cluster key, which the controller creates at start.
  std::string key = opts_.state_dir + "/state/cluster.key";
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  while (!fs::exists(key) && RealClock::MonotonicMs() < deadline) usleep(10'000);
  if (!fs::exists(key))
    return Unavailable("controller did not start; see " + opts_.state_dir + "/log/sluicectld.log");
  if (opts_.agents > 0) {
    const int groups = static_cast<int>(AgentGroups().size());
    for (int g = 0; g < groups; ++g) RETURN_IF_ERROR(StartAgentGroup(g));
  } else {
    for (int i = 0; i < opts_.nodes; ++i) RETURN_IF_ERROR(StartAgent(i));
  }
  RETURN_IF_ERROR(StartRestd());
  return WaitNodesIdle(static_cast<int>(deadline - RealClock::MonotonicMs()));
}

namespace {

std::string SpoolOf(const std::string& state_dir, const std::string& node) {
  return state_dir + "/spool/" + node;
}

}  // namespace

bool LocalCluster::ControllerRunning() const {
  return !FindDaemons("sluicectld", conf_path_).empty();
}

bool LocalCluster::AgentRunning(const std::string& node) const {
  if (PidLock::Holder(AgentSpoolLockPath(SpoolOf(opts_.state_dir, node))) != 0) return true;
  for (const DaemonProcess& d : FindDaemons("sluiced", conf_path_))
    if (d.node == node) return true;
  return false;
}

bool LocalCluster::AnyDaemonRunning() const {
  if (ControllerRunning()) return true;
  auto config = LoadConfigFile(conf_path_);
  if (!config.ok()) return false;
  for (const NodeConfig& n : config->nodes)
    if (AgentRunning(n.name)) return true;
  return false;
}

Status LocalCluster::StartMissing(int timeout_ms) {
  ASSIGN_OR_RETURN(Config config, LoadConfigFile(conf_path_));
  if (opts_.munge) {
    MungedPaths m = MungedPathsIn(opts_.state_dir + "/munge");
    if (!ProcessAlive(ReadPid(m.pid_file))) RETURN_IF_ERROR(StartMunged(m.dir).status());
  }
  if (const std::string pg = PrivatePgDir(opts_.state_dir); !pg.empty()) {
    const std::string& host = config.state_storage.host;  // an address: it listens there too
    RETURN_IF_ERROR(storage::PgServer(pg, host.starts_with("/") ? "" : host).Start());
  }
  opts_.controllers = std::max<int>(1, static_cast<int>(config.ctld_hosts.size()));
  if (opts_.controllers == 1) {
    if (!ControllerRunning()) RETURN_IF_ERROR(StartController());
  } else {
    for (int k = 0; k < opts_.controllers; ++k)
      if (ControllerPid(k) == 0) RETURN_IF_ERROR(StartControllerAt(k));
  }
  std::string key = opts_.state_dir + "/state/cluster.key";
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  while (!fs::exists(key) && RealClock::MonotonicMs() < deadline) usleep(10'000);
  opts_.nodes = static_cast<int>(config.nodes.size());
  const auto groups = AgentGroups();
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    auto names = ExpandHostlist(groups[g]);
    if (names.ok() && !names->empty() && !AgentRunning(names->front()))
      RETURN_IF_ERROR(StartAgentGroup(g));
  }
  for (const NodeConfig& n : config.nodes) {
    if (!groups.empty() || AgentRunning(n.name)) continue;
    RETURN_IF_ERROR(StartAgentOf(n.name, "sluiced"));
  }
  if (config.rest_port > 0 && !ProcessAlive(ReadPid(PidFile("sluicerestd"))))
    RETURN_IF_ERROR(StartRestd());
  return WaitNodesIdle(static_cast<int>(deadline - RealClock::MonotonicMs()));
}

void LocalCluster::KillController(int sig) {
  for (int k = 0; k < opts_.controllers; ++k) KillControllerAt(k, sig);
}

void LocalCluster::KillAgent(int i, int sig) {
  StopProcess(ReadPid(PidFile(NodeName(i))), sig, 5000);
}

namespace {

// Sends SIGTERM to all at once, then waits (SIGKILL after 5 s) for each.
void StopAll(const std::set<pid_t>& pids) {
  for (pid_t p : pids)
    if (p > 0) ::kill(p, SIGTERM);
  for (pid_t p : pids) StopProcess(p, SIGTERM, 5000);
}

// A controller's pid file: sluicectld.pid, sluicectld-ctl2.pid, ...
bool IsControllerPidFile(const fs::path& p) {
  return p.extension() == ".pid" && p.stem().string().starts_with("sluicectld");
}

// Every agent of the cluster: pid files, sluiced with its config, spool lock holders.
std::set<pid_t> ClusterAgents(const std::string& state_dir, const std::string& conf) {
  std::set<pid_t> out;
  const std::string run = state_dir + "/run";
  for (const auto& e : fs::directory_iterator(run))
    if (e.path().extension() == ".pid" && !IsControllerPidFile(e.path()))
      out.insert(ReadPid(e.path()));
  for (const DaemonProcess& d : FindDaemons("sluiced", conf)) out.insert(d.pid);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state_dir + "/spool", ec))
    if (pid_t p = PidLock::Holder(AgentSpoolLockPath(e.path().string())); p > 0) out.insert(p);
  return out;
}

}  // namespace

Status LocalCluster::DownStateDir(const std::string& dir) {
  const std::string state_dir = fs::absolute(dir).lexically_normal().string();
  const std::string run = state_dir + "/run";
  if (!fs::is_directory(run)) return NotFound("no local cluster in " + dir);
  const std::string conf = state_dir + "/sluice.conf";
  StopAll(ClusterAgents(state_dir, conf));
  std::set<pid_t> ctlds;
  for (const auto& e : fs::directory_iterator(run))
    if (IsControllerPidFile(e.path())) ctlds.insert(ReadPid(e.path()));
  for (const DaemonProcess& d : FindDaemons("sluicectld", conf)) ctlds.insert(d.pid);
  StopAll(ctlds);
  for (const auto& e : fs::directory_iterator(run))
    if (e.path().extension() == ".pid") fs::remove(e.path());
  // The jobs' supervisors outlive their agents by design; a cluster that goes down takes
  // its running jobs with it.
  KillStepdTrees(state_dir + "/spool/");
  if (const std::string pg = PrivatePgDir(state_dir); !pg.empty()) storage::PgServer(pg).Stop();
  MungedPaths munged = MungedPathsIn(state_dir + "/munge");
  if (fs::exists(munged.pid_file)) {
    StopMunged(munged);
    fs::remove(munged.pid_file);
  }
  if (auto net = IsolatedNet::Load(state_dir); net.ok()) return net->Remove();
  return Status::Ok();
}

Status LocalCluster::Down() { return DownStateDir(opts_.state_dir); }

Status LocalCluster::WaitNodesIdle(int timeout_ms) {
  int64_t deadline = RealClock::MonotonicMs() + timeout_ms;
  std::string sock = opts_.state_dir + "/state/ident.sock";
  std::string last = "controller not reachable";
  ASSIGN_OR_RETURN(Config config, LoadConfigFile(conf_path_));
  std::vector<std::unique_ptr<ClientApi::Stub>> stubs;  // every controller: one leads
  for (const auto& target : ControllerTargets(config))
    stubs.push_back(ClientApi::NewStub(CreateLimitedChannel(target)));
  while (RealClock::MonotonicMs() < deadline) {
    auto token = FetchCredentialToken(sock);
    if (!token.ok()) last = token.status().message();
    for (size_t i = 0; token.ok() && i < stubs.size(); ++i) {
      grpc::ClientContext ctx;
      ctx.AddMetadata(kCredMetadataKey, *token);
      ctx.AddMetadata(kProtocolMetadataKey, std::to_string(SpokenProtocol()));
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
      GetNodesRequest req;
      GetNodesReply rep;
      auto st = stubs[i]->GetNodes(&ctx, req, &rep);
      if (!st.ok()) {
        last = st.error_message();
        continue;
      }
      int idle = 0;
      for (const auto& n : rep.nodes()) idle += (n.state() == NODE_IDLE && !n.drain());
      if (idle == opts_.nodes) return Status::Ok();
      last = fmt::format("{} of {} nodes idle", idle, opts_.nodes);
      break;
    }
    usleep(20'000);
  }
  return Unavailable("local cluster not ready: " + last + " (logs in " + opts_.state_dir + "/log)");
}

}  // namespace sluice
