// Connecting a command to its cluster: load the config ($SLUICE_CONF, else
// /etc/sluice/sluice.conf; see common/config.h DefaultConfigPath), fetch the caller's
// credential token once from the controller's ident socket (Config::ident_socket, else
// <StateSaveLocation>/ident.sock), and build a ClusterClient for ctld_host:ctld_port.
//   Expected<Connection> conn = ConnectToController({});
//   conn->client->GetJobs({});
// Errors: config problems keep the config parser's message ("sluice.conf:12: ...");
// an unreachable ident socket is reported like an unreachable controller
// ("Unable to contact slurm controller (connect failure)").
#pragma once

#include <memory>
#include <string>

#include "client/cluster_client.h"
#include "common/config.h"

namespace sluice {

struct ConnectOptions {
  std::string config_path;  // empty = DefaultConfigPath()
  int deadline_ms = kDefaultRpcDeadlineMs;
};

struct Connection {
  Config config;
  std::unique_ptr<ClusterClient> client;
};

// The ident socket path a client uses for `config`.
std::string IdentSocketPath(const Config& config);

Expected<Connection> ConnectToController(const ConnectOptions& options);

}  // namespace sluice
