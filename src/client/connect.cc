#include "client/connect.h"

#include <cstdlib>

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

Expected<Connection> ConnectToController(const ConnectOptions& options) {
  std::string path = options.config_path.empty() ? DefaultConfigPath() : options.config_path;
  Expected<Config> config = LoadConfigFile(path);
  if (!config.ok()) return config.status();
  std::vector<std::string> target = ControllerTargets(*config);
  Connection conn;
  if (const char* jwt = std::getenv("SLURM_JWT"); jwt && *jwt) {
    conn.client = ClusterClient::Create(target, jwt, options.deadline_ms);
  } else if (AuthTypeIsMunge(AuthTypeFor(*config))) {
    conn.client = ClusterClient::Create(target, "", options.deadline_ms);
    RETURN_IF_ERROR(AuthenticateWithMunge(*config, conn.client.get()));
  } else {
    Expected<std::string> token = FetchCredentialToken(IdentSocketPath(*config));
    if (!token.ok()) {
      Code code = token.status().code();
      if (code == Code::kUnavailable || code == Code::kNotFound)
        return Unavailable(kConnectFailure);
      return Unauthenticated("Unable to obtain a credential: " + token.status().message());
    }
    conn.client = ClusterClient::Create(target, std::move(*token), options.deadline_ms);
  }
  conn.config = std::move(*config);
  return conn;
}

}  // namespace sluice
