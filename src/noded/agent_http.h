// AgentHttp: the node agent's HTTP endpoint for Prometheus (sluiced --metrics-port N):
// GET /metrics is AgentMetrics' text with the agent's gauges read at the scrape; other
// paths 404, other methods 405. Nothing private is served (no job or user names).
#pragma once

#include <string>

#include "common/status.h"
#include "noded/agent.h"
#include "noded/agent_metrics.h"
#include "rpc/http_listener.h"

namespace sluice {

class AgentHttp {
 public:
  AgentHttp(Agent* agent, const AgentMetrics* metrics, const Clock* clock);
  // Listens on host:port (port 0: a free one, see port()) and serves from its own threads.
  Status Start(const std::string& host, int port);
  int port() const { return http_.port(); }
  void Stop() { http_.Stop(); }

 private:
  Agent* agent_;
  const AgentMetrics* metrics_;
  const Clock* clock_;
  HttpListener http_;
};

}  // namespace sluice
