#include "rpc/http_listener.h"

#include <httplib.h>

namespace sluice {

HttpListener::HttpListener() : server_(std::make_unique<httplib::Server>()) {}

HttpListener::~HttpListener() { Stop(); }

void HttpListener::OnlyGet() {
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_content("only GET\n", "text/plain");
  };
  server_->Post(".*", not_allowed);
  server_->Put(".*", not_allowed);
  server_->Delete(".*", not_allowed);
  server_->Patch(".*", not_allowed);
}

Status HttpListener::Start(const std::string& host, int port, std::string_view what) {
  port_ =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0) {
    port_ = 0;
    return Unavailable(std::string(what) + ": cannot listen on " + host + ":" +
                       std::to_string(port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void HttpListener::Stop() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string RequestToken(const httplib::Request& req) {
  std::string token = req.get_header_value("X-SLURM-USER-TOKEN");
  constexpr std::string_view kBearer = "Bearer ";
  const std::string auth = req.get_header_value("Authorization");
  if (token.empty() && auth.size() > kBearer.size() &&
      auth.compare(0, kBearer.size(), kBearer) == 0)
    token = auth.substr(kBearer.size());
  return token;
}

}  // namespace sluice
