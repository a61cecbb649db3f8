#include "client/connect.h"

#include <unistd.h>

#include <cstdlib>

#include "common/clock.h"

#include "rpc/grpc_limits.h"
#include "rpc/ident_server.h"
#include "rpc/munge_auth.h"

namespace sluice {

std::string IdentSocketPath(const Config& config) {
  if (!config.ident_socket.empty()) return config.ident_socket;
  return config.state_save_location + "/ident.sock";
}

namespace {

std::string RawValue(const Config& config, const std::string& key) {
  auto it = config.raw.find(key);
  return it == config.raw.end() ? "" : it->second;
}

// MUNGE credential from the local munged, traded for a token by the controller.
Status AuthenticateWithMunge(const Config& config, ClusterClient* client) {
  auto cred = MungeEncode(MungeSocketFromAuthInfo(RawValue(config, "AuthInfo")));
  if (!cred.ok()) return cred.status();
  AuthMungeRequest req;
  req.set_credential(*cred);
  ASSIGN_OR_RETURN(AuthMungeReply reply, client->AuthMunge(req));
  client->set_token(reply.token());
  return Status::Ok();
}

}  // namespace

std::string AuthTypeFor(const Config& config) {
  if (const char* env = std::getenv("SLUICE_AUTH_TYPE"); env && *env) return env;
  std::string type = RawValue(config, "AuthType");
  return AuthTypeIsMunge(type) ? type : "auth/ident";
}

int64_t FailoverWaitMs(const Config& config) {
  if (config.Controllers().size() < 2) return 0;
  return int64_t{config.ctld_timeout_s > 0 ? config.ctld_timeout_s : 5} * 1000 + 5000;
}

Expected<Connection> ConnectToController(const ConnectOptions& options) {
  std::string path = options.config_path.empty() ? DefaultConfigPath() : options.config_path;
  Expected<Config> config = LoadConfigFile(path);
  if (!config.ok()) return config.status();
  std::vector<std::string> target = ControllerTargets(*config);
  const int64_t failover_wait_ms = FailoverWaitMs(*config);
  Connection conn;
  if (const char* jwt = std::getenv("SLURM_JWT"); jwt && *jwt) {
    conn.client = ClusterClient::Create(target, jwt, options.deadline_ms);
  } else if (AuthTypeIsMunge(AuthTypeFor(*config))) {
    conn.client = ClusterClient::Create(target, "", options.deadline_ms);
    conn.client->set_failover_wait_ms(failover_wait_ms);
    RETURN_IF_ERROR(AuthenticateWithMunge(*config, conn.client.get()));
  } else {
    // The ident socket belongs to the leading controller: during a takeover it may be
    // gone for a moment.
    const int64_t give_up = RealClock::MonotonicMs() + failover_wait_ms;
    Expected<std::string> token = FetchCredentialToken(IdentSocketPath(*config));
    auto absent = [&] {
      return !token.ok() && (token.status().code() == Code::kUnavailable ||
                             token.status().code() == Code::kNotFound);
    };
    while (absent() && RealClock::MonotonicMs() < give_up) {
      usleep(200'000);
      token = FetchCredentialToken(IdentSocketPath(*config));
    }
    if (!token.ok()) {
      if (absent()) return Unavailable(kConnectFailure);
      return Unauthenticated("Unable to obtain a credential: " + token.status().message());
    }
    conn.client = ClusterClient::Create(target, std::move(*token), options.deadline_ms);
  }
  conn.client->set_failover_wait_ms(failover_wait_ms);
  conn.config = std::move(*config);
  return conn;
}

}  // namespace sluice
