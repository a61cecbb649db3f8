// Node health (HealthCheckProgram results carried by registrations and heartbeats) and
// Prolog/Epilog failures reported with a batch job's end.
#include <fmt/format.h>

#include <algorithm>

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

bool Controller::LiftSystemDrain(NodeRuntime* n, const std::string& reason) {
  if (reason.empty() || !n->admin.drain || n->admin.down || n->admin.reason_uid != 0 ||
      n->admin.reason != reason) {
    return false;
  }
  n->admin.drain = false;
  n->admin.reason.clear();
  n->admin.reason_time = Now();
  MarkNode(n->cfg.name);
  WantSchedule();
  return true;
}

void Controller::ApplyHealth(NodeRuntime* n, const NodeHealth& health) {
  if (health.seq() <= 0 || health.seq() == n->health_seq) return;
  n->health_seq = health.seq();
  if (health.failed()) {
    SystemDrain(n, health.reason().empty() ? "HealthCheck failed" : health.reason());
    return;
  }
  // A pass lifts only the drain this node's health check caused.
  if (LiftSystemDrain(n, health.reason())) {
    log_->info("node health check passes again, undrained node={}", n->cfg.name);
  }
}

void Controller::ApplyGpuHealth(NodeRuntime* n, const GpuHealth& health) {
  const std::string& node = n->cfg.name;
  auto reason = [n](size_t i, const std::string& fault) {
    return fmt::format("GPU {} failed: {}", n->cfg.gpus[i].index, fault);
  };
  bool changed = false;
  for (size_t i = 0; i < n->gpu_faults.size(); ++i) {
    std::string now = i < static_cast<size_t>(health.faults_size()) ? health.faults(i) : "";
    std::string& was = n->gpu_faults[i];
    if (now == was) continue;
    changed = true;
    int index = n->cfg.gpus[i].index;
    if (now.empty()) {
      log_->info("GPU healthy again node={} gpu={}", node, index);
      if (!config_.gpu_health_withhold) LiftSystemDrain(n, reason(i, was));  // never an admin's
      was.clear();
      continue;
    }
    was = now;
    log_->warn("GPU failed node={} gpu={} fault={:?}", node, index, now);
    std::vector<int64_t> held(n->jobs.begin(), n->jobs.end());
    for (int64_t id : held) {
      JobInfo* job = jobs_.Find(id);
      if (!job || !HoldsResources(*job)) continue;
      for (const auto& a : job->alloc()) {
        if (a.node() == node && std::count(a.gpu_ids().begin(), a.gpu_ids().end(), index)) {
          LoseJob(job, "", fmt::format("GPU {} of node {} failed: {}", index, node, now));
          break;
        }
      }
    }
  }
  if (!changed) return;
  if (!config_.gpu_health_withhold) {  // drained for a GPU still failing
    for (size_t i = 0; i < n->gpu_faults.size(); ++i) {
      if (!n->gpu_faults[i].empty()) {
        SystemDrain(n, reason(i, n->gpu_faults[i]));
        break;
      }
    }
  }
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
