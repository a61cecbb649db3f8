#include "ctld/services/ctld_http.h"

#include <httplib.h>

#include "common/metrics_text.h"
#include "ctld/services/dashboard_assets.h"
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

void Refuse(httplib::Response& res, int status, const std::string& why) {
  res.status = status;
  res.set_content(why + "\n", "text/plain");
}

}  // namespace

CtldHttp::CtldHttp(const TokenVerifier* verifier, OwnerLoop* loop, const RpcStats* rpcs)
    : verifier_(verifier), loop_(loop), rpcs_(rpcs) {}

CtldHttp::~CtldHttp() { Stop(); }

Expected<Caller> CtldHttp::CallerOf(const httplib::Request& req, const Caller& fallback) const {
  const std::string token = BearerToken(req);
  if (token.empty()) return fallback;
  return verifier_->Verify(token, req.get_header_value("X-SLURM-USER-NAME"));
}

void CtldHttp::ServeMetrics(const httplib::Request& req, httplib::Response& res) {
  auto area = ParseMetricsPath(req.path);
  if (!area.ok()) return Refuse(res, 404, area.status().message());
  Caller local{kNobody, kNobody};
  if (auto uid =
          LoopbackPeerUid(req.remote_addr, req.remote_port, req.local_addr, req.local_port)) {
    local = {*uid, *uid};
  }
  auto caller = CallerOf(req, local);
  if (!caller.ok()) return Refuse(res, 401, caller.status().message());
  auto rpcs = rpcs_ ? rpcs_->Lifetime() : std::map<std::string, RpcStats::Method>();
  auto text = loop_->Call<std::string>([&](Controller* c) -> Expected<std::string> {
    return c->Metrics(*caller, *area, std::move(rpcs));
  });
  if (!text.ok()) return Refuse(res, 503, text.status().message());
  res.set_content(std::move(*text), kMetricsContentType);
}

void CtldHttp::ServeDashboardState(const httplib::Request& req, httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  if (BearerToken(req).empty()) return Refuse(res, 401, "log in: a token is needed");
  auto caller = CallerOf(req, {kNobody, kNobody});
  if (!caller.ok()) return Refuse(res, 401, caller.status().message());
  auto json = loop_->Call<std::string>(
      [&](Controller* c) -> Expected<std::string> { return c->Dashboard(*caller); });
  if (!json.ok()) return Refuse(res, 503, json.status().message());
  res.set_content(std::move(*json), "application/json");
}

Status CtldHttp::Start(const std::string& host, int port) {
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics(/.*)?", [this](const httplib::Request& req, httplib::Response& res) {
    ServeMetrics(req, res);
  });
  server_->Get("/dashboard/state", [this](const httplib::Request& req, httplib::Response& res) {
    ServeDashboardState(req, res);
  });
  server_->Get("/(dashboard(/.*)?)?", [](const httplib::Request& req, httplib::Response& res) {
    const DashboardAsset* asset = FindDashboardAsset(req.path);
    if (!asset) return Refuse(res, 404, "no such page: " + req.path);
    res.set_content(asset->body.data(), asset->body.size(), asset->content_type);
  });
  server_->Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    Refuse(res, 404, "no such path: " + req.path);
  });
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    Refuse(res, 405, "only GET");
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

void CtldHttp::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice::ctld
