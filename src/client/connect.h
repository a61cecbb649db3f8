// Connecting a command to its cluster: load the config ($SLUICE_CONF, else
// /etc/sluice/sluice.conf; see common/config.h DefaultConfigPath), fetch the caller's
// credential token once from the controller's ident socket (Config::ident_socket, else
// <StateSaveLocation>/ident.sock), and build a ClusterClient for ctld_host:ctld_port.
//   Expected<Connection> conn = ConnectToController({});
//   conn->client->GetJobs({});
// Authentication: with AuthType=auth/munge in the config (or SLUICE_AUTH_TYPE=auth/munge
// in the environment) the command encodes a MUNGE credential with its local munged
// (AuthInfo=socket=PATH, else libmunge's default) and trades it for a token with the
// AuthMunge rpc (rpc/munge_auth.h), so it works on hosts without the ident socket;
// MUNGE errors keep their text ("Munge encode failed: ...", "Invalid MUNGE credential: ...").
// With SLURM_JWT in the environment (a token from `scontrol token`, AuthAltTypes=auth/jwt)
// the command sends that token, as Slurm's commands do. Otherwise it uses the ident socket.
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

// "auth/munge" or "auth/ident", as described above.
std::string AuthTypeFor(const Config& config);

// With several controllers, how long a client waits for one to lead (0 with one): a
// takeover takes up to SlurmctldTimeout (default 5 s) and a second or two.
int64_t FailoverWaitMs(const Config& config);

Expected<Connection> ConnectToController(const ConnectOptions& options);

}  // namespace sluice
