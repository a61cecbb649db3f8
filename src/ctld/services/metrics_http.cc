#include "ctld/services/metrics_http.h"

#include <httplib.h>

#include "common/metrics_text.h"
#include "rpc/loopback_peer.h"

namespace sluice::ctld {
namespace {

std::string BearerToken(const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && auth.compare(0, kBearer.size(), kBearer) == 0)
    return auth.substr(kBearer.size());
  return req.get_header_value("X-SLURM-USER-TOKEN");
}

}  // namespace

MetricsHttp::MetricsHttp(const TokenVerifier* verifier, OwnerLoop* loop, const RpcStats* rpcs)
    : verifier_(verifier), loop_(loop), rpcs_(rpcs) {}

MetricsHttp::~MetricsHttp() { Stop(); }

Status MetricsHttp::Start(const std::string& host, int port) {
  server_ = std::make_unique<httplib::Server>();
  server_->Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
    auto area = ParseMetricsPath(req.path);
    if (!area.ok()) {
      res.status = 404;
      res.set_content(area.status().message() + "\n", "text/plain");
      return;
    }
    Caller caller{kNobody, kNobody};
    if (const std::string token = BearerToken(req); !token.empty()) {
      auto who = verifier_->Verify(token, req.get_header_value("X-SLURM-USER-NAME"));
      if (!who.ok()) {
        res.status = 401;
        res.set_content(who.status().message() + "\n", "text/plain");
        return;
      }
      caller = *who;
    } else if (auto uid = LoopbackPeerUid(req.remote_addr, req.remote_port, req.local_addr,
                                          req.local_port)) {
      caller = {*uid, *uid};
    }
    auto rpcs = rpcs_ ? rpcs_->Lifetime() : std::map<std::string, RpcStats::Method>();
    auto text = loop_->Call<std::string>([&](Controller* c) -> Expected<std::string> {
      return c->Metrics(caller, *area, std::move(rpcs));
    });
    if (!text.ok()) {
      res.status = 503;
      res.set_content(text.status().message() + "\n", "text/plain");
      return;
    }
    res.set_content(std::move(*text), kMetricsContentType);
  });
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_content("only GET\n", "text/plain");
  };
  server_->Post(".*", not_allowed);
  server_->Put(".*", not_allowed);
  server_->Delete(".*", not_allowed);
  port_ =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0) {
    port_ = 0;
    return Unavailable("MetricsPort: cannot listen on " + host + ":" + std::to_string(port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void MetricsHttp::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice::ctld
