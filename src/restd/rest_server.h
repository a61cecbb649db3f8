// RestServer: RestApi (rest_api.h) over HTTP/1.1 (cpp-httplib). Each request must carry
// a token in X-SLURM-USER-TOKEN (as slurmrestd's rest_auth/jwt; "Authorization: Bearer"
// also works), optionally with X-SLURM-USER-NAME; both go to the controller with every
// RPC of the request, which decides who the caller is (ctld/services/token_verifier.h).
// No token: 401 with Slurm's error list. The OpenAPI document needs none.
#pragma once

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "common/clock.h"
#include "common/status.h"
#include "restd/rest_api.h"
#include "rpc/http_listener.h"

namespace sluice {

class RestServer {
 public:
  // `ctld_target`: the controller's host:port.
  RestServer(std::string conf_path, std::string ctld_target);
  // Listens on host:port (0: a free one, see port()) and serves from its own threads.
  Status Start(const std::string& host, int port);
  int port() const { return http_.port(); }
  void Stop() { http_.Stop(); }

 private:
  RealClock clock_;
  RestApi api_;
  std::shared_ptr<grpc::Channel> channel_;
  HttpListener http_;
};

}  // namespace sluice
