// sluiced: the node agent. Usage:
//   sluiced [-f config] [-N nodename | --nodes HOSTLIST] [-D] [--fake-gpus N] [--metrics-port N]
//   sluiced [-f config] [-N nodename] --print-gres
// --print-gres prints the node's GPUs as slurmd -G does (found through NVML on an
// AutoDetect=nvml node, with the topology matrix, else as configured) and exits: 0, or 1
// when what was found disagrees with the configuration.
// Runs in the foreground and logs to stderr; SIGTERM/SIGINT stop it (jobs keep running).
// --nodes serves many nodes from one process (an emulated cluster for tests and
// benchmarks, hosted_node.h): each registers, heartbeats and runs its jobs as its own
// agent would; they must share one NodeAddr:Port in the config.
// --metrics-port serves the agent's Prometheus metrics (agent_http.h) on its address.
// The log level is SlurmdDebug's; SIGHUP reads it again from the config file.
// Holds <spool>/sluiced.lock for life (common/pid_lock.h): a second agent for the same
// node exits 1 with "another sluiced already runs for node N: ... is held by pid P".
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/config.h"
#include "common/hostlist.h"
#include "gpu/gres_check.h"
#include "noded/agent_config.h"
#include "noded/agent_http.h"
#include "noded/agent_service.h"
#include "noded/gpu_detect.h"
#include "noded/hosted_node.h"
#include "rpc/credential.h"
#include "rpc/grpc_limits.h"
#include "rpc/node_auth.h"
#include "rpc/protocol.h"

namespace sluice {
namespace {

struct Args {
  std::string config_path;
  std::string node_name;
  int fake_gpus = -1;
  std::string nodes_expr;  // --nodes: a hostlist of nodes this one process serves
  int metrics_port = 0;    // 0: no metrics endpoint
  bool print_gres = false;
};

Expected<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (s == "-D") continue;
    if (s == "--print-gres") {
      a.print_gres = true;
      continue;
    }
    if (s == "-f" || s == "-N" || s == "--nodes" || s == "--fake-gpus" || s == "--metrics-port") {
      if ((v = value()) == nullptr) return InvalidArgument("option " + s + " needs a value");
    } else {
      return InvalidArgument("unknown option " + s);
    }
    if (s == "-f") a.config_path = v;
    if (s == "-N") a.node_name = v;
    if (s == "--nodes") a.nodes_expr = v;
    if (s == "--fake-gpus") a.fake_gpus = std::atoi(v);
    if (s == "--metrics-port") {
      char* end = nullptr;
      const long port = std::strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || port < 1 || port > 65535)
        return InvalidArgument(std::string("invalid --metrics-port: ") + v);
      a.metrics_port = static_cast<int>(port);
    }
  }
  if (!a.node_name.empty() && !a.nodes_expr.empty())
    return InvalidArgument("-N and --nodes exclude each other");
  if (a.config_path.empty()) a.config_path = DefaultConfigPath();
  if (a.node_name.empty() && a.nodes_expr.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    a.node_name = std::string(host).substr(0, std::string(host).find('.'));
  }
  return a;
}

int Fail(const Status& st) {
  std::fprintf(stderr, "sluiced: error: %s\n", st.message().c_str());
  return 1;
}

// SlurmdDebug of `config` ("" = info).
Expected<log::Level> AgentLogLevel(const Config& config) {
  auto it = config.raw.find("SlurmdDebug");
  auto level = log::ParseLevel(it == config.raw.end() ? "" : it->second);
  if (!level.ok()) return InvalidArgument("SlurmdDebug: " + level.status().message());
  return level;
}

// The setups of the nodes this process serves: -N's one, or --nodes' expansion. They
// must share one listening address (an emulated cluster's nodes share NodeAddr/Port).
Expected<std::vector<AgentSetup>> HostedSetups(const Args& args, const Config& config) {
  std::vector<std::string> names{args.node_name};
  if (!args.nodes_expr.empty()) {
    ASSIGN_OR_RETURN(names, ExpandHostlist(args.nodes_expr));
    if (names.empty()) return InvalidArgument("--nodes names no node");
  }
  std::vector<AgentSetup> setups;
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(AgentSetup s, AgentSetupFromConfig(config, name, args.fake_gpus));
    setups.push_back(std::move(s));
    const AgentOptions &first = setups.front().options, &now = setups.back().options;
    if (now.addr != first.addr || now.port != first.port) {
      return InvalidArgument(fmt::format(
          "--nodes: {} listens on {}:{} but {} on {}:{}; the nodes of one sluiced must share "
          "NodeAddr and Port",
          first.node_name, first.addr, first.port, name, now.addr, now.port));
    }
  }
  return setups;
}

// Room for every hosted node's spool lock, sockets and stepd channels.
void RaiseFileLimit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// --print-gres: what the agent of `name` would register.
int PrintGres(const Config& config, const std::string& name) {
  auto node = config.FindNode(name);
  if (node == nullptr) {
    return Fail(NotFound("node " + name + " is not in the configuration " + config.path));
  }
  if (node->gpu_autodetect != "nvml") {
    for (const GpuDef& d : node->gpus) std::printf("%s\n", gpu::GresLine(d).c_str());
    return 0;
  }
  DetectedGpus found = DetectGpus(*node);
  std::printf("AutoDetect=nvml (%s): %zu GPUs\n%s", gpu::Nvml::DefaultLibrary().c_str(),
              found.gpus.size(), found.report.c_str());
  return found.gres_error.empty() ? 0 : 1;
}

int Main(int argc, char** argv) {
#ifdef SLUICE_PROTOCOL_DRILL  // sluiced-proto-*: an agent one release apart (tests only)
  SpeakProtocol(kProtocolVersion + (SLUICE_PROTOCOL_DRILL));
#endif
  auto args = ParseArgs(argc, argv);
  if (!args.ok()) return Fail(args.status());
  auto config = LoadConfigFile(args->config_path);
  if (!config.ok()) return Fail(config.status());
  if (args->print_gres) {
    if (!args->nodes_expr.empty())
      return Fail(InvalidArgument("--print-gres takes -N, not --nodes"));
    return PrintGres(*config, args->node_name);
  }
  auto setups = HostedSetups(*args, *config);
  if (!setups.ok()) return Fail(setups.status());
  if (setups->size() > 1 && args->metrics_port > 0)
    return Fail(InvalidArgument("--metrics-port serves one node; not with --nodes"));
  auto level = AgentLogLevel(*config);
  if (!level.ok()) return Fail(level.status());
  auto key = LoadClusterKey(setups->front().key_file, /*create=*/false);
  if (!key.ok()) return Fail(key.status());
  RaiseFileLimit();

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);  // handled by sigwait below
  ::signal(SIGPIPE, SIG_IGN);

  RealClock clock;
  StepdLauncher launcher(StepdLauncher::DefaultStepdPath(), /*prestart=*/true);
  HostedNodeShared shared;
  shared.clock = &clock;
  shared.launcher = &launcher;
  shared.cluster_key = *key;
  shared.log_level = *level;
  shared.name_in_log = setups->size() > 1;
  std::vector<std::unique_ptr<HostedNode>> nodes;
  std::map<std::string, Agent*> agents;
  for (AgentSetup& setup : *setups) {
    auto node = HostedNode::Open(*config, std::move(setup), shared);
    if (!node.ok()) return Fail(node.status());
    agents[(*node)->options().node_name] = (*node)->agent();
    nodes.push_back(std::move(*node));
  }
#ifdef SLUICE_FAULT_HOOKS
  // Test-only build (sluiced-faults): with SLUICE_FAULT_DIR set, the file
  // <dir>/die-after-spawn.<node> arms a crash: the next launch's stepd starts, then this
  // agent removes the file and kills itself before answering the controller.
  if (const char* dir = std::getenv("SLUICE_FAULT_DIR")) {
    for (auto& node : nodes) {
      std::string armed = std::string(dir) + "/die-after-spawn." + node->options().node_name;
      node->agent()->SetLaunchFaultHook([armed](int64_t) {
        if (::unlink(armed.c_str()) == 0) ::raise(SIGKILL);
      });
    }
  }
#endif
  NodeVerifier verifier(*key, &clock);
  AgentService service(agents, &verifier);
  const AgentOptions& first = nodes.front()->options();
  std::string listen = first.addr + ":" + std::to_string(first.port);
  grpc::ServerBuilder builder;
  // No SO_REUSEPORT (gRPC's default): a second daemon on the same port must fail to
  // start, not silently share this agent's connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  LimitServer(&builder);
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) return Fail(Unavailable("cannot listen on " + listen));
  if (nodes.size() == 1) {
    std::fprintf(stderr, "sluiced: node %s listening on %s, spool %s\n", first.node_name.c_str(),
                 listen.c_str(), nodes.front()->spool_dir().c_str());
  } else {
    std::fprintf(stderr, "sluiced: %zu nodes (%s) listening on %s\n", nodes.size(),
                 args->nodes_expr.c_str(), listen.c_str());
  }
  AgentHttp http(nodes.front()->agent(), nodes.front()->metrics(), &clock);
  if (args->metrics_port > 0) {
    if (Status st = http.Start(first.addr, args->metrics_port); !st.ok()) {
      server->Shutdown();
      return Fail(st);
    }
    std::fprintf(stderr, "sluiced: metrics at http://%s:%d/metrics\n", first.addr.c_str(),
                 http.port());
  }
  for (auto& node : nodes) node->Run();

  int sig = 0;
  while (sigwait(&mask, &sig) == 0 && sig == SIGHUP) {
    auto reread = LoadConfigFile(args->config_path);
    auto now = reread.ok() ? AgentLogLevel(*reread) : Expected<log::Level>(reread.status());
    if (!now.ok()) {
      first.log->error("SIGHUP: configuration not applied error={:?}", now.status().message());
      continue;
    }
    for (auto& node : nodes) node->SetLogLevel(*now);
    first.log->info("SIGHUP: log level set level={}", spdlog::level::to_string_view(*now));
  }
  std::fprintf(stderr, "sluiced: signal %d, shutting down (jobs keep running)\n", sig);
  for (auto& node : nodes) node->Stop();
  http.Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
