// Node health (HealthCheckProgram results carried by registrations and heartbeats) and
// Prolog/Epilog failures reported with a batch job's end.
#include <fmt/format.h>

#include "ctld/core/controller.h"

namespace sluice::ctld {

void Controller::SystemDrain(NodeRuntime* n, const std::string& reason) {
  if (n->admin.drain || n->admin.down) return;  // keep the earlier (e.g. admin's) reason
  log_->warn("node drained node={} reason={:?}", n->cfg.name, reason);
  n->admin.drain = true;
  n->admin.reason = reason;
  n->admin.reason_time = Now();
  n->admin.reason_uid = 0;
  MarkNode(n->cfg.name);
  WantSchedule();
}

void Controller::ApplyHealth(NodeRuntime* n, const NodeHealth& health) {
  if (health.seq() <= 0 || health.seq() == n->health_seq) return;
  n->health_seq = health.seq();
  if (health.failed()) {
    SystemDrain(n, health.reason().empty() ? "HealthCheck failed" : health.reason());
    return;
  }
  // A pass lifts only the drain this node's health check caused.
  if (health.reason().empty() || !n->admin.drain || n->admin.down || n->admin.reason_uid != 0 ||
      n->admin.reason != health.reason()) {
    return;
  }
  log_->info("node health check passes again, undrained node={}", n->cfg.name);
  n->admin.drain = false;
  n->admin.reason.clear();
  n->admin.reason_time = Now();
  MarkNode(n->cfg.name);
  WantSchedule();
}

bool Controller::HandleNodeScripts(JobInfo* job, const JobReport& r) {
  NodeRuntime* host = job->alloc_size() > 0 ? nodes_.Find(job->alloc(0).node()) : nullptr;
  if (r.epilog_failed() && host) SystemDrain(host, "Epilog error");
  if (!r.prolog_failed()) return false;
  if (host) SystemDrain(host, "Prolog error");
  if (job->completing() && !job->requeue_on_end()) {  // cancelled meanwhile
    ReleaseResources(job);
    return true;
  }
  log_->warn("prolog failed, job requeued job_id={}", job->job_id());
  RequeueNow(job, "None");
  return true;
}

}  // namespace sluice::ctld
