// RestServer: RestApi (rest_api.h) over HTTP/1.1 (cpp-httplib). Each request must carry
// a token in X-SLURM-USER-TOKEN (as slurmrestd's rest_auth/jwt; "Authorization: Bearer"
// also works), optionally with X-SLURM-USER-NAME; both go to the controller with every
// RPC of the request, which decides who the caller is (ctld/services/token_verifier.h).
// No token: 401 with Slurm's error list. The OpenAPI document needs none.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "common/clock.h"
#include "common/status.h"
#include "restd/rest_api.h"
#include "rpc/http_listener.h"

namespace sluice {

class RestServer {
 public:
  // `ctld_targets`: every controller's host:port, the primary first (each request goes to
  // the one that leads, waiting up to `failover_wait_ms` for a takeover).
  RestServer(std::string conf_path, const std::vector<std::string>& ctld_targets,
             int64_t failover_wait_ms);
  // Listens on host:port (0: a free one, see port()) and serves from its own threads.
  Status Start(const std::string& host, int port);
  int port() const { return http_.port(); }
  void Stop() { http_.Stop(); }

 private:
  RealClock clock_;
  RestApi api_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  int64_t failover_wait_ms_;
  HttpListener http_;
};

}  // namespace sluice
