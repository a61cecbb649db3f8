#include "client/connect.h"

#include "rpc/ident_server.h"

namespace sluice {

std::string IdentSocketPath(const Config& config) {
  if (!config.ident_socket.empty()) return config.ident_socket;
  return config.state_save_location + "/ident.sock";
}

Expected<Connection> ConnectToController(const ConnectOptions& options) {
  std::string path = options.config_path.empty() ? DefaultConfigPath() : options.config_path;
  Expected<Config> config = LoadConfigFile(path);
  if (!config.ok()) return config.status();
  Expected<std::string> token = FetchCredentialToken(IdentSocketPath(*config));
  if (!token.ok()) {
    Code code = token.status().code();
    if (code == Code::kUnavailable || code == Code::kNotFound) return Unavailable(kConnectFailure);
    return Unauthenticated("Unable to obtain a credential: " + token.status().message());
  }
  std::string target = config->ctld_host + ":" + std::to_string(config->ctld_port);
  Connection conn;
  conn.client = ClusterClient::Create(target, std::move(*token), options.deadline_ms);
  conn.config = std::move(*config);
  return conn;
}

}  // namespace sluice
