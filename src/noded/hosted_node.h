// HostedNode: one node's agent inside a sluiced process. It owns what a node needs of its
// own: the spool (JobTracker, and the spool lock held for life: a second agent for the
// node is refused), the signed controller link in the node's name, the Agent with its
// metrics, the stepd-end listener and client relay on the node's sockets, the health
// check, and the thread running Agent::Run.
//
// sluiced hosts one (a real node) or many (`sluiced --nodes node[0001-0512]`: an
// emulated cluster on one machine) over one gRPC server (AgentService routes each call
// to its node's Agent), one StepdLauncher and one NodeVerifier. Each hosted node
// registers, heartbeats, launches real stepds and reports ends exactly as its own
// sluiced would: this is the production path, only shared.
//
//   auto node = HostedNode::Open(config, *AgentSetupFromConfig(config, "node0001"), shared);
//   ... serve node->agent() ...
//   node->Run();    // health check, then the control loop (registers)
//   node->Stop();   // loop, health check and sockets; jobs keep running
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/config.h"
#include "common/pid_lock.h"
#include "log/log.h"
#include "noded/agent.h"
#include "noded/agent_config.h"
#include "noded/agent_metrics.h"
#include "noded/client_relay.h"
#include "noded/controller_link.h"
#include "noded/end_listener.h"
#include "noded/gpu_monitor.h"
#include "noded/health_check.h"
#include "noded/job_tracker.h"
#include "noded/stepd_launcher.h"

namespace sluice {

// What the nodes of one sluiced process share.
struct HostedNodeShared {
  const Clock* clock = nullptr;
  StepdLauncher* launcher = nullptr;
  std::string cluster_key;
  log::Level log_level = log::Level::info;
  // The logger's name carries the node's when a process hosts several ("sluiced node0001").
  bool name_in_log = false;
};

class HostedNode {
 public:
  // `setup`: the node's AgentSetupFromConfig (with sluiced's --fake-gpus).
  static Expected<std::unique_ptr<HostedNode>> Open(const Config& config, AgentSetup setup,
                                                    const HostedNodeShared& shared);
  ~HostedNode();
  HostedNode(const HostedNode&) = delete;
  HostedNode& operator=(const HostedNode&) = delete;

  Agent* agent() { return agent_.get(); }
  AgentMetrics* metrics() { return &metrics_; }
  const AgentOptions& options() const { return agent_->options(); }
  const std::string& spool_dir() const { return spool_dir_; }
  // Runs the health check once (as slurmd does before registering), then its interval
  // thread and the control loop.
  void Run();
  void Stop();
  void SetLogLevel(log::Level level) { agent_->options().log->set_level(level); }

 private:
  HostedNode(const Config& config, AgentSetup setup, PidLock lock, const HostedNodeShared& shared);

  std::string spool_dir_;
  PidLock spool_lock_;
  JobTracker jobs_;
  GrpcControllerLink link_;
  AgentMetrics metrics_;
  std::unique_ptr<Agent> agent_;
  EndListener ends_;
  ClientRelay relay_;
  HealthCheck health_;
  std::unique_ptr<GpuMonitor> gpu_monitor_;  // AutoDetect=nvml with NVML loaded
  std::atomic<bool> stop_{false};
  std::thread loop_;
};

}  // namespace sluice
