#include "noded/agent_http.h"

#include <httplib.h>

#include "common/metrics_text.h"

namespace sluice {

AgentHttp::AgentHttp(Agent* agent, const AgentMetrics* metrics, const Clock* clock)
    : agent_(agent), metrics_(metrics), clock_(clock) {}

Status AgentHttp::Start(const std::string& host, int port) {
  httplib::Server& server = http_.server();
  server.Get("/metrics/?", [this](const httplib::Request& req, httplib::Response& res) {
    std::string text =
        metrics_->Render(agent_->options().node_name, clock_->NowMs(), agent_->MetricsGauges());
    if (WantsOpenMetrics(req.get_header_value("Accept"))) {
      res.set_content(ToOpenMetrics(text), kOpenMetricsContentType);
    } else {
      res.set_content(std::move(text), kMetricsContentType);
    }
  });
  server.Get(".*", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 404;
    res.set_content("no metrics at " + req.path + "\n", "text/plain");
  });
  http_.OnlyGet();
  return http_.Start(host, port, "--metrics-port");
}

}  // namespace sluice
