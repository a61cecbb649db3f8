#include "noded/agent_http.h"

#include <httplib.h>

#include "common/metrics_text.h"

namespace sluice {

AgentHttp::AgentHttp(Agent* agent, const AgentMetrics* metrics, const Clock* clock)
    : agent_(agent), metrics_(metrics), clock_(clock) {}

AgentHttp::~AgentHttp() { Stop(); }

Status AgentHttp::Start(const std::string& host, int port) {
  server_ = std::make_unique<httplib::Server>();
  server_->Get("/metrics/?", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        metrics_->Render(agent_->options().node_name, clock_->NowMs(), agent_->MetricsGauges()),
        kMetricsContentType);
  });
  server_->Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 404;
    res.set_content("no metrics at " + req.path + "\n", "text/plain");
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
    return Unavailable("--metrics-port: cannot listen on " + host + ":" + std::to_string(port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return Status::Ok();
}

void AgentHttp::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice
