#include "noded/agent_metrics.h"

#include "common/metrics_text.h"

namespace sluice {

void AgentMetrics::ControllerAnswered(int64_t now_ms) {
  std::lock_guard lock(mu_);
  last_answer_ms_ = now_ms;
}

void AgentMetrics::ControllerCallFailed() {
  std::lock_guard lock(mu_);
  ++call_failures_;
}

void AgentMetrics::StepdSpawned(double seconds) {
  std::lock_guard lock(mu_);
  spawn_seconds_.Observe(seconds);
}

void AgentMetrics::StepdSpawnFailed() {
  std::lock_guard lock(mu_);
  ++spawn_failures_;
}

std::string AgentMetrics::Render(const std::string& node, int64_t now_ms,
                                 const Gauges& gauges) const {
  std::lock_guard lock(mu_);
  const MetricLabels labels{{"node", node}};
  MetricsText m;
  auto one = [&](const char* name, const char* type, const char* help, double v) {
    m.Family(name, type, help);
    m.Add(labels, v);
  };
  one("sluice_agent_registered", "gauge", "1 when registered with the controller",
      gauges.registered ? 1 : 0);
  one("sluice_agent_heartbeat_age_seconds", "gauge",
      "Seconds since the controller last answered a registration or heartbeat",
      static_cast<double>(now_ms - last_answer_ms_) / 1000.0);
  one("sluice_agent_running_jobs", "gauge", "Batch job supervisors running on this node",
      gauges.running_jobs);
  one("sluice_agent_running_steps", "gauge", "Step supervisors running on this node",
      gauges.running_steps);
  if (!gauges.gpu_faults.empty()) {
    m.Family("sluice_agent_gpu_healthy", "gauge",
             "1 when the GPU passed the last health check (GpuHealthCheckInterval), else 0");
    for (size_t i = 0; i < gauges.gpu_faults.size(); ++i) {
      m.Add({{"node", node}, {"gpu", std::to_string(i)}}, gauges.gpu_faults[i].empty() ? 1 : 0);
    }
  }
  m.Family("sluice_agent_stepd_spawn_seconds", "histogram",
           "Time to start a job or step supervisor until it runs");
  m.Add(labels, spawn_seconds_);
  one("sluice_agent_stepd_spawn_failures_total", "counter",
      "Job or step supervisors that could not be started", static_cast<double>(spawn_failures_));
  one("sluice_agent_controller_call_failures_total", "counter",
      "Registrations and heartbeats the controller did not answer",
      static_cast<double>(call_failures_));
  return m.Take();
}

}  // namespace sluice
