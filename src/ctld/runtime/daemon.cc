#include "ctld/runtime/daemon.h"

#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "acct/acct_writer.h"
#include "common/config.h"
#include "ctld/core/controller.h"
#include "ctld/runtime/agent_link.h"
#include "ctld/runtime/config_check.h"
#include "ctld/runtime/leadership.h"
#include "ctld/runtime/owner_loop.h"
#include "ctld/runtime/reconfigure.h"
#include "ctld/runtime/standby_server.h"
#include "ctld/services/client_service.h"
#include "ctld/services/ctld_http.h"
#include "ctld/services/jwt.h"
#include "ctld/services/node_service.h"
#include "rpc/credential.h"
#include "rpc/grpc_limits.h"
#include "rpc/ident_server.h"
#include "rpc/munge_auth.h"
#include "rpc/rpc_stats.h"
#include "sched/scheduler.h"
#include "storage/pg_state_store.h"
#include "storage/state_dump.h"

namespace sluice::ctld {
namespace {

int Fail(const std::string& msg) {
  std::cerr << "sluicectld: error: " << msg << "\n";
  return 1;
}

Status PrepareStateDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Unavailable("cannot create " + dir + ": " + ec.message());
  chmod(dir.c_str(), 0755);
  return Status::Ok();
}

int64_t MinJobAge(const Config& config) {
  for (const auto& [k, v] : config.raw) {
    if (strcasecmp(k.c_str(), "MinJobAge") == 0) return std::atoll(v.c_str());
  }
  return 300;
}

std::string RawValue(const Config& config, const std::string& key) {
  auto it = config.raw.find(key);
  return it == config.raw.end() ? "" : it->second;
}

// AuthType=auth/munge: check that our munged works (encode + decode one credential)
// and turn on the AuthMunge rpc.
Status SetUpMunge(const Config& config, ClientService* service, const log::Logger& log) {
  const std::string type = RawValue(config, "AuthType");
  if (type.empty() || !AuthTypeIsMunge(type)) return Status::Ok();
  const std::string socket = MungeSocketFromAuthInfo(RawValue(config, "AuthInfo"));
  auto cred = MungeEncode(socket);
  if (!cred.ok()) return Unavailable("AuthType=auth/munge: " + cred.status().message());
  auto who = MungeDecode(socket, *cred);
  if (!who.ok()) return Unavailable("AuthType=auth/munge: " + who.status().message());
  service->EnableMunge(socket, 10 * 60 * 1000);
  log->info("accepting MUNGE credentials munged_socket={}", socket.empty() ? "default" : socket);
  return Status::Ok();
}

// AuthAltTypes=auth/jwt: load the key and let the client service take and issue JWTs.
Status SetUpJwt(const Config& config, ClientService* service, const log::Logger& log) {
  auto jwt = ParseAuthAlt(RawValue(config, "AuthAltTypes"), RawValue(config, "AuthAltParameters"));
  if (!jwt.ok()) return jwt.status();
  if (!jwt->enabled) return Status::Ok();
  const std::string path =
      jwt->key_path.empty() ? config.state_save_location + "/jwt_hs256.key" : jwt->key_path;
  auto key = LoadJwtKey(path);
  if (!key.ok())
    return Status(key.status().code(), "AuthAltTypes=auth/jwt: " + key.status().message());
  service->EnableJwt(std::move(*key), jwt->max_lifespan_s, jwt->creation_disabled);
  log->info("accepting JWTs jwt_key={}", path);
  return Status::Ok();
}

// Whether SIGTERM or SIGINT came within `ms` (they are blocked; see RunDaemon).
bool SignalWithin(int64_t ms, const log::Logger& log) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  int sig = sigtimedwait(&set, nullptr, &ts);
  if (sig > 0) log->info("shutting down signal={}", sig);
  return sig > 0;
}

// Which SlurmctldHost this controller is: the one named `name` (sluicectld -N), else the
// one named like this host, else the primary.
Expected<CtldHost> SelfHost(const Config& config, const std::string& name) {
  const std::vector<CtldHost> hosts = config.Controllers();
  std::string want = name;
  if (want.empty()) {
    char buf[256] = {};
    gethostname(buf, sizeof(buf) - 1);
    want = std::string(buf).substr(0, std::string(buf).find('.'));
  }
  for (const auto& h : hosts) {
    if (h.name == want) return h;
  }
  if (!name.empty()) return NotFound("-N " + name + ": no SlurmctldHost line names it");
  return hosts.front();
}

// Tries for the lease every second; false when told to stop first.
bool WaitToLead(Leadership* leadership, const log::Logger& log) {
  std::string last_error;
  for (;;) {
    auto epoch = leadership->TryLead();
    if (epoch.ok() && epoch->has_value()) break;
    if (!epoch.ok() && epoch.status().message() != last_error) {
      last_error = epoch.status().message();
      log->error("cannot reach the state database error={:?}", last_error);
    }
    if (SignalWithin(1000, log)) return false;
  }
  return true;
}

// state/pgsql: stand by until this controller holds the lease (null: told to stop), then
// open the store fenced with its epoch.
Expected<std::unique_ptr<storage::StateStore>> LeadOnPostgres(Leadership* leadership,
                                                              const std::string& conn,
                                                              const std::string& listen,
                                                              const log::Logger& log) {
  {
    StandbyServer standby(leadership->holder());
    RETURN_IF_ERROR(standby.Start(listen));
    if (!WaitToLead(leadership, log)) return std::unique_ptr<storage::StateStore>();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<storage::PgStateStore> store, storage::PgStateStore::Open(conn));
  store->FenceWith(leadership->epoch());
  return std::unique_ptr<storage::StateStore>(std::move(store));
}

// Until SIGTERM or SIGINT; each SIGHUP reconfigures (as `scontrol reconfigure`).
void WaitForSignal(const log::Logger& log, Reconfigurer* reconfigurer) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  for (;;) {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig != SIGHUP) {
      log->info("shutting down signal={}", sig);
      return;
    }
    auto changes = reconfigurer->Reconfigure();
    if (!changes.ok()) {
      log->error("reconfigure on SIGHUP refused error={:?}", changes.status().message());
    } else {
      log->info("reconfigured on SIGHUP changes={}", changes->size());
    }
  }
}

}  // namespace

int RunDaemon(const DaemonOptions& options) {
  // Block the shutdown signals in every thread; the main thread sigwaits for them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto config = LoadConfigFile(options.config_path);
  if (!config.ok()) return Fail(config.status().message());
  Config& cfg = *config;
  // Everything checked now, a standby's configuration too (not once it takes over).
  if (auto problems = CheckControllerConfig(cfg); !problems.empty())
    return Fail(problems.front().message);
  log::Logger log = log::Stderr("sluicectld", log::ParseLevel(cfg.ctld_debug).value());
  const std::string& state_dir = cfg.state_save_location;
  if (Status st = PrepareStateDir(state_dir); !st.ok()) return Fail(st.message());
  // The parser fills both in from StateSaveLocation when the config does not set them.
  const std::string& ident = cfg.ident_socket;
  auto key = LoadClusterKey(cfg.cluster_key_file, /*create=*/true);
  if (!key.ok()) return Fail(key.status().message());

  auto self = SelfHost(cfg, options.host_name);
  if (!self.ok()) return Fail(self.status().message());
  const std::string listen = self->addr + ":" + std::to_string(cfg.ctld_port);

  std::unique_ptr<Leadership> leadership;
  std::unique_ptr<storage::StateStore> store;
  if (cfg.state_storage.type == "state/pgsql") {
    const int64_t ttl_ms = int64_t{cfg.ctld_timeout_s > 0 ? cfg.ctld_timeout_s : 5} * 1000;
    const std::string conn = storage::StateConnString(cfg);
    leadership = std::make_unique<Leadership>(conn, self->name, listen, ttl_ms, log);
    auto led = LeadOnPostgres(leadership.get(), conn, listen, log);
    if (!led.ok()) return Fail(led.status().message());
    if (!*led) return 0;  // stopped while standing by
    store = std::move(*led);
    leadership->KeepLeading([](const std::string&) {
      // Whatever this controller would still do, another one now does: stop at once,
      // as a crash would (what was committed is the new leader's starting point).
      std::_Exit(1);
    });
  } else {
    auto sqlite = storage::OpenStateStore(cfg, /*create=*/true);
    if (!sqlite.ok()) return Fail(sqlite.status().message());
    store = std::move(*sqlite);
  }

  RealClock clock;
  IdentServer ident_server(ident, *key, &clock);
  if (Status st = ident_server.Start(); !st.ok()) return Fail(st.message());

  Reconfigurer reconfigurer(options.config_path, cfg, log);
  if (leadership) {
    // A standby may have waited through the leader's `scontrol reconfigure`s: it leads with
    // the file as it is now (what applies live; the rest needs this daemon restarted).
    auto changed = reconfigurer.Reconfigure();
    if (!changed.ok())
      log->error("leading with the configuration read at start: {}", changed.status().message());
  }
  GrpcAgentLink agents(*key, &clock, cfg.message_timeout_s * 1000);
  SchedDeps deps{reconfigurer.scheduler(),
                 [](const sched::ClusterSnapshot& s, const sched::JobRequest& j) {
                   return sched::CheckFeasible(s, j);
                 }};
  ControllerOptions copts;
  copts.admin_uid = getuid();
  copts.min_job_age_s = MinJobAge(cfg);
  copts.fault_hook = options.fault_hook;
  copts.log = log;
  Controller controller(reconfigurer.current(), &clock, store.get(), &agents, deps, copts);
  if (Status st = controller.Load(options.clean_start); !st.ok()) return Fail(st.message());
  std::unique_ptr<acct::AcctWriter> acct_writer;
  if (cfg.accounting.type != "accounting_storage/none") {
    acct::AcctConfig ac;
    ac.type = cfg.accounting.type;
    ac.sqlite_path = !cfg.accounting.loc.empty() && cfg.accounting.loc.front() == '/'
                         ? cfg.accounting.loc
                         : state_dir + "/accounting.db";
    ac.host = cfg.accounting.host;
    ac.port = cfg.accounting.port;
    ac.user = cfg.accounting.user;
    ac.pass = cfg.accounting.pass;
    ac.db = cfg.accounting.loc;
    acct_writer = std::make_unique<acct::AcctWriter>(ac, log);
    if (Status st = acct_writer->Start(); !st.ok()) return Fail(st.message());
    controller.SetAccounting(acct_writer.get());
    controller.AcctResync();  // records a crash may have lost
  }
  OwnerLoop loop(&controller, &clock);
  loop.Start();
  reconfigurer.SetLoop(&loop);

  ClientService client_service(*key, &clock, &loop);
  if (Status st = SetUpMunge(cfg, &client_service, log); !st.ok()) {
    loop.Stop();
    return Fail(st.message());
  }
  if (Status st = SetUpJwt(cfg, &client_service, log); !st.ok()) {
    loop.Stop();
    return Fail(st.message());
  }
  if (leadership && cfg.Controllers().size() > 1) {
    // scontrol takeover: the clean stop, which releases the lease for a standby.
    client_service.SetHandOver([] { kill(getpid(), SIGTERM); });
  }
  client_service.SetReconfigure([&reconfigurer] { return reconfigurer.Reconfigure(); });
  NodeService node_service(*key, &clock, &loop);
  client_service.SetAccounting(acct_writer.get());
  RpcStats rpc_stats;
  client_service.SetRpcStats(&rpc_stats);
  grpc::ServerBuilder builder;
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(RpcStatsInterceptor(&rpc_stats));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a port clash fails loudly
  LimitServer(&builder);
  int bound_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &bound_port);
  builder.RegisterService(&client_service);
  builder.RegisterService(&node_service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound_port == 0) {
    loop.Stop();
    return Fail("cannot listen on " + listen);
  }
  (void)loop.Call<bool>([&](Controller* c) -> Expected<bool> {
    c->AskNodesToRegister(self->name);
    return true;
  });
  CtldHttp http(&client_service.verifier(), &loop, &rpc_stats);
  if (cfg.metrics_port > 0) {
    if (Status st = http.Start(self->addr, cfg.metrics_port); !st.ok()) {
      server->Shutdown();
      loop.Stop();
      return Fail(st.message());
    }
    log->info("serving metrics url=http://{}:{}/metrics", self->addr, http.port());
    log->info("serving dashboard url=http://{}:{}/dashboard/", self->addr, http.port());
  }
  log->info("listening cluster={} address={} jobs_restored={}", cfg.cluster_name, listen,
            controller.jobs().size());
  WaitForSignal(log, &reconfigurer);
  http.Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  loop.Stop();
  if (acct_writer) {
    acct_writer->Flush(5000);
    acct_writer->Stop();
  }
  ident_server.Stop();
  if (leadership) leadership->Release();
  return 0;
}

}  // namespace sluice::ctld
