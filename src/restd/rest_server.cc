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

}  // namespace

RestServer::RestServer(std::string conf_path, const std::vector<std::string>& ctld_targets,
                       int64_t failover_wait_ms)
    : api_(std::move(conf_path), &clock_, OpenApiDocument()), failover_wait_ms_(failover_wait_ms) {
  for (const std::string& t : ctld_targets) channels_.push_back(CreateLimitedChannel(t));
}

Status RestServer::Start(const std::string& host, int port) {
  httplib::Server& server = http_.server();
  server.set_payload_max_length(kMaxBodyBytes);
  auto handle = [this](const httplib::Request& http, httplib::Response& res) {
    RestRequest req{http.method, http.path, {}, http.body};
    for (const auto& [k, v] : http.params) req.query[k] = v;
    RestResponse out;
    const std::string token = RequestToken(http);
    if (!RestApi::IsPublic(req.path) && token.empty()) {
      out = {
          401,
          ErrorsJson({{"Authentication failure: X-SLURM-USER-TOKEN is required", 6000}}).dump(2)};
    } else {
      ClusterClient client(channels_, token, kDefaultRpcDeadlineMs);
      client.set_failover_wait_ms(failover_wait_ms_);
      RestUser user;
      user.name = http.get_header_value("X-SLURM-USER-NAME");
      if (!user.name.empty()) {
        client.set_user_name(user.name);
        if (auto uid = PasswdUserId(user.name); uid.ok()) user.uid = *uid;
      }
      out = api_.Handle(req, &client, user);
    }
    res.status = out.status;
    res.body = std::move(out.body);  // set_content would copy it
    res.set_header("Content-Type", "application/json");
  };
  server.Get(".*", handle);
  server.Post(".*", handle);
  server.Delete(".*", handle);
  server.Put(".*", handle);
  server.Patch(".*", handle);
  return http_.Start(host, port, "RestPort");
}

}  // namespace sluice
