#include "noded/hosted_node.h"

#include "rpc/credential.h"
#include "rpc/node_auth.h"

namespace sluice {
namespace {

HealthCheckOptions HealthOptions(const Config& config, const AgentOptions& opts) {
  HealthCheckOptions hc;
  hc.program = config.health_check_program;
  hc.interval_s = config.health_check_interval_s;
  hc.node_state = config.health_check_node_state;
  hc.node_name = opts.node_name;
  hc.conf_path = config.path;
  hc.cpus = opts.cpus;
  return hc;
}

}  // namespace

Expected<std::unique_ptr<HostedNode>> HostedNode::Open(const Config& config, AgentSetup setup,
                                                       const HostedNodeShared& shared) {
  const std::string node = setup.options.node_name;
  setup.options.log =
      log::Stderr(shared.name_in_log ? "sluiced " + node : "sluiced", shared.log_level);
  RETURN_IF_ERROR(JobTracker(setup.spool_dir, shared.clock).Init());
  // One agent per node: held for life, taken before any socket of the spool is touched.
  auto lock = PidLock::Acquire(AgentSpoolLockPath(setup.spool_dir));
  if (!lock.ok()) {
    return FailedPrecondition("another sluiced already runs for node " + node + ": " +
                              lock.status().message());
  }
  std::unique_ptr<HostedNode> n(new HostedNode(config, std::move(setup), std::move(*lock), shared));
  Agent* agent = n->agent_.get();
  RETURN_IF_ERROR(n->ends_.Start(agent->options().agent_socket, [agent] { agent->Wake(); }));
  RETURN_IF_ERROR(n->relay_.Start(agent->options().relay_socket,
                                  [agent](RelayRequest r) { return agent->Relay(std::move(r)); }));
  return n;
}

HostedNode::HostedNode(const Config& config, AgentSetup setup, PidLock lock,
                       const HostedNodeShared& shared)
    : spool_dir_(std::move(setup.spool_dir)),
      spool_lock_(std::move(lock)),
      jobs_(spool_dir_, shared.clock),
      link_(ControllerTargets(config), ControllerNames(config),
            NodeSigner(shared.cluster_key, setup.options.node_name, shared.clock)),
      metrics_(shared.clock->NowMs()),
      health_(HealthOptions(config, setup.options)) {
  if (setup.nvml) {
    gpu_monitor_ = std::make_unique<GpuMonitor>(setup.nvml, config.gpu_health_check_interval_s);
  }
  agent_ = std::make_unique<Agent>(std::move(setup.options), shared.clock, &link_, &jobs_,
                                   shared.launcher);
  agent_->SetMetrics(&metrics_);
}

HostedNode::~HostedNode() { Stop(); }

void HostedNode::Run() {
  health_.RunNow();  // before the first registration, as slurmd does
  agent_->SetHealthCheck(&health_);
  health_.Start([this] { agent_->HeartbeatSoon(); });
  if (gpu_monitor_) {
    gpu_monitor_->CheckNow();
    agent_->SetGpuMonitor(gpu_monitor_.get());
    gpu_monitor_->Start([this] { agent_->HeartbeatSoon(); });
  }
  loop_ = std::thread([this] { agent_->Run(stop_); });
}

void HostedNode::Stop() {
  stop_ = true;
  agent_->Wake();
  if (loop_.joinable()) loop_.join();
  health_.Stop();
  if (gpu_monitor_) gpu_monitor_->Stop();
  ends_.Stop();
  relay_.Stop();
}

}  // namespace sluice
