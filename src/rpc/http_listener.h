// HttpListener: one cpp-httplib server on a thread of its own, for the daemons' HTTP
// ports (the controller's metrics and dashboard, a node agent's metrics, sluicerestd).
// Add routes to server() first; Start() binds host:port (0: a free one, see port()) and
// serves until Stop() or destruction.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "common/status.h"

namespace httplib {
class Server;
struct Request;
}  // namespace httplib

namespace sluice {

class HttpListener {
 public:
  HttpListener();
  ~HttpListener();
  httplib::Server& server() { return *server_; }
  // 405 "only GET" for every POST, PUT, DELETE and PATCH.
  void OnlyGet();
  // `what` names the port in the error ("MetricsPort: cannot listen on host:port").
  Status Start(const std::string& host, int port, std::string_view what);
  int port() const { return port_; }
  void Stop();

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

// The token a request carries: X-SLURM-USER-TOKEN, else "Authorization: Bearer <token>";
// "" when none.
std::string RequestToken(const httplib::Request& req);

}  // namespace sluice
