// AgentMetrics: what a node agent counts about itself, served as Prometheus text on its
// own port (agent_http.h; sluiced --metrics-port, or SlurmdMetricsPort= in the config):
//   sluice_agent_registered{node}                  1 once registered with the controller
//   sluice_agent_heartbeat_age_seconds{node}       since the controller last answered a
//                                                  registration or heartbeat (since the
//                                                  agent started when it never did)
//   sluice_agent_running_jobs{node}, sluice_agent_running_steps{node}   live supervisors
//   sluice_agent_stepd_spawn_seconds{node}         histogram: time to start a stepd (batch
//                                                  or step) until it is running
//   sluice_agent_stepd_spawn_failures_total{node},
//   sluice_agent_controller_call_failures_total{node}
// Counters and the histogram are since the agent started; gauges are read at the scrape.
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/histogram.h"

namespace sluice {

class AgentMetrics {
 public:
  explicit AgentMetrics(int64_t start_ms) : last_answer_ms_(start_ms) {}

  void ControllerAnswered(int64_t now_ms);  // a registration or heartbeat was answered
  void ControllerCallFailed();
  void StepdSpawned(double seconds);
  void StepdSpawnFailed();

  struct Gauges {
    bool registered = false;
    int running_jobs = 0;
    int running_steps = 0;
    // The GPU health check's last answer, by GPU index ("" = healthy); empty: no check.
    std::vector<std::string> gpu_faults;
  };
  std::string Render(const std::string& node, int64_t now_ms, const Gauges& gauges) const;

 private:
  mutable std::mutex mu_;
  int64_t last_answer_ms_;
  int64_t call_failures_ = 0;
  int64_t spawn_failures_ = 0;
  Histogram spawn_seconds_{Histogram::Exponential(0.0005, 2, 14)};  // 0.5 ms .. 4 s
};

}  // namespace sluice
