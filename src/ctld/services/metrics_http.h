// MetricsHttp: the controller's HTTP endpoint for Prometheus (MetricsPort= in the config;
// none without it): GET /metrics and the per-area paths of cluster_metrics.h. Each scrape
// renders on the owner thread, so gauges are exact at the scrape. Who asks decides
// whether PrivateData hides the per-user and per-account series: the uid of a token
// (token_verifier.h: a Sluice credential, or a JWT with auth/jwt) in "Authorization:
// Bearer <token>" (or Slurm's "X-SLURM-USER-TOKEN" with "X-SLURM-USER-NAME"), else
// the uid owning the client's socket when it connects from this host (so local root is
// an admin), else nobody. A bad token is 401; an unknown path 404; other methods 405.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "ctld/runtime/owner_loop.h"
#include "ctld/services/token_verifier.h"
#include "rpc/rpc_stats.h"

namespace httplib {
class Server;
}

namespace sluice::ctld {

inline constexpr uint32_t kNobody = 65534;

class MetricsHttp {
 public:
  MetricsHttp(const TokenVerifier* verifier, OwnerLoop* loop, const RpcStats* rpcs);
  ~MetricsHttp();
  // Listens on host:port (port 0: a free one, see port()) and serves from its own threads.
  Status Start(const std::string& host, int port);
  int port() const { return port_; }
  void Stop();

 private:
  const TokenVerifier* verifier_;
  OwnerLoop* loop_;
  const RpcStats* rpcs_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace sluice::ctld
