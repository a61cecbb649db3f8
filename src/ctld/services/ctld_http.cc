#include "ctld/services/ctld_http.h"

#include <httplib.h>

#include "common/metrics_text.h"
#include "ctld/services/dashboard_assets.h"
#include "rpc/loopback_peer.h"

namespace sluice::ctld {
namespace {

void Refuse(httplib::Response& res, int status, const std::string& why) {
  res.status = status;
  res.set_content(why + "\n", "text/plain");
}

}  // namespace

CtldHttp::CtldHttp(const TokenVerifier* verifier, OwnerLoop* loop, const RpcStats* rpcs)
    : verifier_(verifier), loop_(loop), rpcs_(rpcs) {}

Expected<Caller> CtldHttp::CallerOf(const httplib::Request& req, const Caller& fallback) const {
  const std::string token = RequestToken(req);
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
  if (WantsOpenMetrics(req.get_header_value("Accept"))) {
    res.set_content(ToOpenMetrics(*text), kOpenMetricsContentType);
  } else {
    res.set_content(std::move(*text), kMetricsContentType);
  }
}

void CtldHttp::ServeDashboardState(const httplib::Request& req, httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  if (RequestToken(req).empty()) return Refuse(res, 401, "log in: a token is needed");
  auto caller = CallerOf(req, {kNobody, kNobody});
  if (!caller.ok()) return Refuse(res, 401, caller.status().message());
  auto json = loop_->Call<std::string>(
      [&](Controller* c) -> Expected<std::string> { return c->Dashboard(*caller); });
  if (!json.ok()) return Refuse(res, 503, json.status().message());
  res.set_content(std::move(*json), "application/json");
}

Status CtldHttp::Start(const std::string& host, int port) {
  httplib::Server& server = http_.server();
  server.Get("/metrics(/.*)?", [this](const httplib::Request& req, httplib::Response& res) {
    ServeMetrics(req, res);
  });
  server.Get("/dashboard/state", [this](const httplib::Request& req, httplib::Response& res) {
    ServeDashboardState(req, res);
  });
  server.Get("/(dashboard(/.*)?)?", [](const httplib::Request& req, httplib::Response& res) {
    const DashboardAsset* asset = FindDashboardAsset(req.path);
    if (!asset) return Refuse(res, 404, "no such page: " + req.path);
    res.set_content(asset->body.data(), asset->body.size(), asset->content_type);
  });
  server.Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    Refuse(res, 404, "no such path: " + req.path);
  });
  http_.OnlyGet();
  return http_.Start(host, port, "MetricsPort");
}

}  // namespace sluice::ctld
