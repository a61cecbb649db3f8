// The agent's own series: heartbeat age from the last answer, spawn histogram, failures.
#include "noded/agent_metrics.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(AgentMetrics, RendersGaugesCountersAndTheSpawnHistogram) {
  AgentMetrics m(/*start_ms=*/1'000);
  std::string text = m.Render("n1", 4'000, {});
  EXPECT_NE(text.find("sluice_agent_registered{node=\"n1\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("sluice_agent_heartbeat_age_seconds{node=\"n1\"} 3\n"), std::string::npos);
  m.ControllerAnswered(10'000);
  m.ControllerCallFailed();
  m.ControllerCallFailed();
  m.StepdSpawned(0.003);
  m.StepdSpawned(0.2);
  m.StepdSpawnFailed();
  text = m.Render("n1", 12'500, {true, 2, 5, {"", "XID 79 error"}});
  for (const char* line : {
           "sluice_agent_registered{node=\"n1\"} 1\n",
           "sluice_agent_heartbeat_age_seconds{node=\"n1\"} 2.5\n",
           "sluice_agent_running_jobs{node=\"n1\"} 2\n",
           "sluice_agent_running_steps{node=\"n1\"} 5\n",
           "sluice_agent_stepd_spawn_seconds_count{node=\"n1\"} 2\n",
           "sluice_agent_stepd_spawn_seconds_bucket{node=\"n1\",le=\"0.004\"} 1\n",
           "sluice_agent_stepd_spawn_failures_total{node=\"n1\"} 1\n",
           "sluice_agent_controller_call_failures_total{node=\"n1\"} 2\n",
           "sluice_agent_gpu_healthy{node=\"n1\",gpu=\"0\"} 1\n",
           "sluice_agent_gpu_healthy{node=\"n1\",gpu=\"1\"} 0\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
}

}  // namespace
}  // namespace sluice
