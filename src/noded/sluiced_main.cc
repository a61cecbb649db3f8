// sluiced: the node agent. Usage:
//   sluiced [-f config] [-N nodename] [-D] [--fake-gpus N] [--metrics-port N]
// Runs in the foreground and logs to stderr; SIGTERM/SIGINT stop it (jobs keep running).
// --metrics-port serves the agent's Prometheus metrics (agent_http.h) on its address.
// The log level is SlurmdDebug's; SIGHUP reads it again from the config file.
// Holds <spool>/sluiced.lock for life (common/pid_lock.h): a second agent for the same
// node exits 1 with "another sluiced already runs for node N: ... is held by pid P".
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/config.h"
#include "common/pid_lock.h"
#include "noded/agent.h"
#include "noded/agent_config.h"
#include "noded/agent_http.h"
#include "noded/agent_service.h"
#include "noded/client_relay.h"
#include "noded/controller_link.h"
#include "noded/end_listener.h"
#include "noded/health_check.h"
#include "rpc/credential.h"
#include "rpc/grpc_limits.h"
#include "rpc/node_auth.h"

namespace sluice {
namespace {

struct Args {
  std::string config_path;
  std::string node_name;
  int fake_gpus = -1;
  int metrics_port = 0;  // 0: no metrics endpoint
};

Expected<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (s == "-D") continue;
    if (s == "-f" || s == "-N" || s == "--fake-gpus" || s == "--metrics-port") {
      if ((v = value()) == nullptr) return InvalidArgument("option " + s + " needs a value");
    } else {
      return InvalidArgument("unknown option " + s);
    }
    if (s == "-f") a.config_path = v;
    if (s == "-N") a.node_name = v;
    if (s == "--fake-gpus") a.fake_gpus = std::atoi(v);
    if (s == "--metrics-port") {
      char* end = nullptr;
      const long port = std::strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || port < 1 || port > 65535)
        return InvalidArgument(std::string("invalid --metrics-port: ") + v);
      a.metrics_port = static_cast<int>(port);
    }
  }
  if (a.config_path.empty()) a.config_path = DefaultConfigPath();
  if (a.node_name.empty()) {
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

int Main(int argc, char** argv) {
  auto args = ParseArgs(argc, argv);
  if (!args.ok()) return Fail(args.status());
  auto config = LoadConfigFile(args->config_path);
  if (!config.ok()) return Fail(config.status());
  auto setup = AgentSetupFromConfig(*config, args->node_name, args->fake_gpus);
  if (!setup.ok()) return Fail(setup.status());
  auto level = AgentLogLevel(*config);
  if (!level.ok()) return Fail(level.status());
  setup->options.log = log::Stderr("sluiced", *level);
  auto key = LoadClusterKey(setup->key_file, /*create=*/false);
  if (!key.ok()) return Fail(key.status());

  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);  // handled by sigwait below
  ::signal(SIGPIPE, SIG_IGN);

  RealClock clock;
  const AgentOptions& opts = setup->options;
  JobTracker jobs(setup->spool_dir, &clock);
  if (Status st = jobs.Init(); !st.ok()) return Fail(st);
  // One agent per node: held for life, taken before any socket of the spool is touched.
  auto spool_lock = PidLock::Acquire(AgentSpoolLockPath(setup->spool_dir));
  if (!spool_lock.ok()) {
    return Fail(FailedPrecondition("another sluiced already runs for node " + opts.node_name +
                                   ": " + spool_lock.status().message()));
  }
  StepdLauncher launcher(StepdLauncher::DefaultStepdPath(), /*prestart=*/true);
  GrpcControllerLink link(ChannelTarget(opts.ctld_host, opts.ctld_port),
                          NodeSigner(*key, opts.node_name, &clock));
  Agent agent(opts, &clock, &link, &jobs, &launcher);
  AgentMetrics metrics(clock.NowMs());
  agent.SetMetrics(&metrics);
#ifdef SLUICE_FAULT_HOOKS
  // Test-only build (sluiced-faults): with SLUICE_FAULT_DIR set, the file
  // <dir>/die-after-spawn.<node> arms a crash: the next launch's stepd starts, then this
  // agent removes the file and kills itself before answering the controller.
  if (const char* dir = std::getenv("SLUICE_FAULT_DIR")) {
    std::string armed = std::string(dir) + "/die-after-spawn." + opts.node_name;
    agent.SetLaunchFaultHook([armed](int64_t) {
      if (::unlink(armed.c_str()) == 0) ::raise(SIGKILL);
    });
  }
#endif
  NodeVerifier verifier(*key, &clock);
  AgentService service(&agent, &verifier);
  EndListener ends;
  if (Status st = ends.Start(opts.agent_socket, [&] { agent.Wake(); }); !st.ok()) return Fail(st);
  ClientRelay relay;
  if (Status st =
          relay.Start(opts.relay_socket, [&](RelayRequest r) { return agent.Relay(std::move(r)); });
      !st.ok()) {
    return Fail(st);
  }

  std::string listen = opts.addr + ":" + std::to_string(opts.port);
  grpc::ServerBuilder builder;
  // No SO_REUSEPORT (gRPC's default): a second daemon on the same port must fail to
  // start, not silently share this agent's connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  LimitServer(&builder);
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) return Fail(Unavailable("cannot listen on " + listen));
  std::fprintf(stderr, "sluiced: node %s listening on %s, spool %s\n", opts.node_name.c_str(),
               listen.c_str(), setup->spool_dir.c_str());
  AgentHttp http(&agent, &metrics, &clock);
  if (args->metrics_port > 0) {
    if (Status st = http.Start(opts.addr, args->metrics_port); !st.ok()) {
      server->Shutdown();
      return Fail(st);
    }
    std::fprintf(stderr, "sluiced: metrics at http://%s:%d/metrics\n", opts.addr.c_str(),
                 http.port());
  }

  HealthCheckOptions hc;
  hc.program = config->health_check_program;
  hc.interval_s = config->health_check_interval_s;
  hc.node_state = config->health_check_node_state;
  hc.node_name = opts.node_name;
  hc.conf_path = config->path;
  hc.cpus = opts.cpus;
  HealthCheck health(hc);
  health.RunNow();  // before the first registration, as slurmd does
  agent.SetHealthCheck(&health);
  health.Start([&] { agent.HeartbeatSoon(); });

  std::atomic<bool> stop{false};
  std::thread loop([&] { agent.Run(stop); });
  int sig = 0;
  while (sigwait(&mask, &sig) == 0 && sig == SIGHUP) {
    auto reread = LoadConfigFile(args->config_path);
    auto now = reread.ok() ? AgentLogLevel(*reread) : Expected<log::Level>(reread.status());
    if (!now.ok()) {
      opts.log->error("SIGHUP: configuration not applied error={:?}", now.status().message());
      continue;
    }
    opts.log->set_level(*now);
    opts.log->info("SIGHUP: log level set level={}", spdlog::level::to_string_view(*now));
  }
  std::fprintf(stderr, "sluiced: signal %d, shutting down (jobs keep running)\n", sig);
  stop = true;
  agent.Wake();
  loop.join();
  health.Stop();
  ends.Stop();
  relay.Stop();
  http.Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
