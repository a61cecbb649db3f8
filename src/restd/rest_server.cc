#include "restd/rest_server.h"

#include <httplib.h>

#include "cli/process_env.h"
#include "client/cluster_client.h"
#include "restd/openapi_doc.h"
#include "restd/rest_json.h"
#include "rpc/grpc_limits.h"

namespace sluice {
namespace {

constexpr size_t kMaxBodyBytes = 8 << 20;  // a batch script and its environment

std::string TokenOf(const httplib::Request& req) {
  std::string token = req.get_header_value("X-SLURM-USER-TOKEN");
  constexpr std::string_view kBearer = "Bearer ";
  const std::string auth = req.get_header_value("Authorization");
  if (token.empty() && auth.compare(0, kBearer.size(), kBearer) == 0)
    token = auth.substr(kBearer.size());
  return token;
}

}  // namespace

RestServer::RestServer(std::string conf_path, std::string ctld_target)
    : api_(std::move(conf_path), &clock_, OpenApiDocument()),
      channel_(CreateLimitedChannel(ctld_target)) {}

RestServer::~RestServer() { Stop(); }

Status RestServer::Start(const std::string& host, int port) {
  server_ = std::make_unique<httplib::Server>();
  server_->set_payload_max_length(kMaxBodyBytes);
  auto handle = [this](const httplib::Request& http, httplib::Response& res) {
    RestRequest req{http.method, http.path, {}, http.body};
    for (const auto& [k, v] : http.params) req.query[k] = v;
    RestResponse out;
    const std::string token = TokenOf(http);
    if (!RestApi::IsPublic(req.path) && token.empty()) {
      out = {
          401,
          ErrorsJson({{"Authentication failure: X-SLURM-USER-TOKEN is required", 6000}}).dump(2)};
    } else {
      ClusterClient client(channel_, token, kDefaultRpcDeadlineMs);
      RestUser user;
      user.name = http.get_header_value("X-SLURM-USER-NAME");
      if (!user.name.empty()) {
        client.set_user_name(user.name);
        if (auto uid = PasswdUserId(user.name); uid.ok()) user.uid = *uid;
      }
      out = api_.Handle(req, &client, user);
    }
    res.status = out.status;
    res.set_content(out.body, "application/json");
  };
  server_->Get(".*", handle);
  server_->Post(".*", handle);
  server_->Delete(".*", handle);
  server_->Put(".*", handle);
  server_->Patch(".*", handle);
  port_ =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0) {
    port_ = 0;
    return Unavailable("cannot listen on " + host + ":" + std::to_string(port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void RestServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice
