// CtldHttp: the controller's HTTP endpoint (MetricsPort= in the config; none without it):
//   GET /metrics and the per-area paths of cluster_metrics.h (Prometheus text);
//   GET /dashboard/ (also /), its assets (dashboard_assets.h) and /dashboard/state, the
//   dashboard's JSON (dashboard_view.h), which needs a token;
//   other methods 405, unknown paths 404.
// Everything is rendered on the owner thread, so what it shows is exact at the request.
// Who asks: the uid of a token (token_verifier.h: a Sluice credential, or a JWT with
// auth/jwt) in "Authorization: Bearer <token>" (or Slurm's "X-SLURM-USER-TOKEN" with
// "X-SLURM-USER-NAME"), else, for /metrics only, the uid owning the client's socket when
// it connects from this host (so local root is an admin), else nobody. A bad token is
// 401. PrivateData decides what a caller sees (per-user series, others' jobs).
#pragma once

#include <string>

#include "common/status.h"
#include "ctld/runtime/owner_loop.h"
#include "ctld/services/token_verifier.h"
#include "rpc/http_listener.h"
#include "rpc/rpc_stats.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace sluice::ctld {

inline constexpr uint32_t kNobody = 65534;

class CtldHttp {
 public:
  CtldHttp(const TokenVerifier* verifier, OwnerLoop* loop, const RpcStats* rpcs);
  // Listens on host:port (port 0: a free one, see port()) and serves from its own threads.
  Status Start(const std::string& host, int port);
  int port() const { return http_.port(); }
  void Stop() { http_.Stop(); }

 private:
  void ServeMetrics(const httplib::Request& req, httplib::Response& res);
  void ServeDashboardState(const httplib::Request& req, httplib::Response& res);
  // The caller a request's token names; no token: `fallback`. A bad token: 401 in `res`.
  Expected<Caller> CallerOf(const httplib::Request& req, const Caller& fallback) const;

  const TokenVerifier* verifier_;
  OwnerLoop* loop_;
  const RpcStats* rpcs_;
  HttpListener http_;
};

}  // namespace sluice::ctld
