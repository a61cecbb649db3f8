// Node API operations of the Controller: registration with reconciliation,
// heartbeats, job ends, launch results, liveness, time-limit backstop and purges.
#include <fmt/format.h>

#include "ctld/core/controller.h"
#include "rpc/protocol.h"

namespace sluice::ctld {

void Controller::AskNodesToRegister(const std::string& self) {
  for (const NodeRuntime& n : nodes_.nodes()) {
    if (!n.registered) agents_->Reregister(AddressOf(n.cfg.name), self);
  }
}

void Controller::SyncFoundGpus(const NodeRuntime& n) {
  if (n.found_gpus.empty()) return;
  auto it = config_.node_index.find(n.cfg.name);
  if (it != config_.node_index.end() && config_.nodes[it->second].name == n.cfg.name) {
    config_.nodes[it->second].gpus = n.cfg.gpus;
  }
}

namespace {

bool IsBatchHost(const JobInfo& job, const std::string& node) {
  return job.alloc_size() > 0 && job.alloc(0).node() == node;
}

// The report is about the job's current run (agents that predate run ids: assumed).
bool SameRun(const JobReport& r, const JobInfo& job) {
  return !r.has_restarts() || r.restarts() == job.restarts();
}

constexpr size_t kMaxUnsentPerNode = 4096;

std::string ResourceShortfall(const NodeRuntime& n, const RegisterNodeRequest& req) {
  if (req.cpus() > 0 && req.cpus() < n.cfg.cpus) return "Low socket*core*thread count";
  if (req.real_memory_mb() > 0 && req.real_memory_mb() < n.cfg.real_memory_mb) {
    return "Low RealMemory";
  }
  if (req.gpus_size() < static_cast<int>(n.cfg.gpus.size())) {
    return "gres/gpu count reported lower than configured";
  }
  return "";
}

}  // namespace

Expected<RegisterNodeReply> Controller::RegisterNode(const RegisterNodeRequest& req) {
  NodeRuntime* n = nodes_.Find(req.node());
  if (!n) return NotFound(fmt::format("Node {} is not in the configuration", req.node()));
  n->registered = true;
  n->responding = true;
  n->last_heartbeat_ms = clock_->NowMs();
  n->boot_time = req.boot_time();
  n->version = req.version();
  n->protocol = PeerProtocol(req.auth().protocol());
  if (!req.addr().empty()) n->addr = req.addr();
  if (req.port() > 0) n->port = req.port();
  if (nodes_.AdoptFoundGpus(n, {req.gpus().begin(), req.gpus().end()})) SyncFoundGpus(*n);
  std::string shortfall = req.gres_error().empty() ? ResourceShortfall(*n, req) : req.gres_error();
  if (!shortfall.empty() && !n->admin.drain) {
    n->admin.drain = true;
    n->admin.reason = shortfall;
    n->admin.reason_time = Now();
    n->admin.reason_uid = 0;
    MarkNode(n->cfg.name);
  }
  RegisterNodeReply reply;
  n->session = ++last_session_;
  reply.set_session(n->session);
  ReconcileReports(n, req, &reply);
  RestoreSteps(*n, req);
  ResendSignals(n);
  if (req.has_health()) ApplyHealth(n, req.health());
  if (req.has_gpu_health()) ApplyGpuHealth(n, req.gpu_health());
  reply.set_alloc_cpus(n->AllocatedCpus());
  WantSchedule();
  return reply;
}

void Controller::ReconcileReports(NodeRuntime* n, const RegisterNodeRequest& req,
                                  RegisterNodeReply* reply) {
  const std::string& name = n->cfg.name;
  std::set<int64_t> reported;
  for (const auto& r : req.jobs()) {
    JobInfo* job = jobs_.Find(r.job_id());
    bool here = job && HoldsResources(*job) && n->jobs.count(r.job_id()) && SameRun(r, *job);
    if (here) reported.insert(r.job_id());
    if (r.finished()) {
      if (here && IsBatchHost(*job, name)) ApplyEndReport(job, r);
      continue;
    }
    if (!here) {
      reply->add_kill_job_ids(r.job_id());
    } else if (Ending(*job)) {
      SendSignalTo(name, r.job_id(), SIGNAL_CANCEL, 0);  // the cancel may have been lost
    }
  }
  std::vector<int64_t> held(n->jobs.begin(), n->jobs.end());
  for (int64_t id : held) {
    if (reported.count(id) || launching_.count(id)) continue;
    JobInfo* job = jobs_.Find(id);
    if (!job || !IsBatchHost(*job, name) || NoBatchScript(*job)) continue;
    // Started by an earlier controller instance moments ago: its LaunchJob may still be
    // on its way (and would start the job after this registration). Launch again: the
    // agent runs a (job, restart) once, so exactly one copy runs either way.
    bool earlier_instance = job->start_time() * 1000 < start_ms_;
    if (earlier_instance && !job->completing() && job->state() == JOB_RUNNING &&
        Now() - job->start_time() <= kLaunchInFlightS) {
      LaunchOn(*job, 0);
      continue;
    }
    LoseJob(job, name);
  }
}

HeartbeatReply Controller::Heartbeat(const HeartbeatRequest& req) {
  HeartbeatReply reply;
  NodeRuntime* n = nodes_.Find(req.node());
  if (!n || !n->registered || !n->responding) {
    reply.set_reregister(true);
    return reply;
  }
  n->last_heartbeat_ms = clock_->NowMs();
  if (req.has_sent_ms()) n->clock_skew_ms = req.sent_ms() - n->last_heartbeat_ms;
  ResendSignals(n);
  for (int64_t id : req.running_job_ids()) {
    if (!n->jobs.count(id)) {
      reply.add_kill_job_ids(id);
    } else if (const JobInfo* job = jobs_.Find(id); job && Ending(*job)) {
      // Still running although cancelled: the cancel was lost, or overtook the launch.
      SendSignalTo(n->cfg.name, id, SIGNAL_CANCEL, 0);
    }
  }
  if (req.has_health()) ApplyHealth(n, req.health());
  if (req.has_gpu_health()) ApplyGpuHealth(n, req.gpu_health());
  reply.set_alloc_cpus(n->AllocatedCpus());
  return reply;
}

Status Controller::JobEnded(const JobEndedRequest& req) {
  JobInfo* job = jobs_.Find(req.report().job_id());
  NodeRuntime* n = nodes_.Find(req.node());
  const JobReport& r = req.report();
  if (n && (r.prolog_failed() || r.epilog_failed()) && !(job && IsBatchHost(*job, req.node()))) {
    // A non-batch node's Prolog/Epilog failed (noded/agent_node_scripts.cc): drain it; a
    // failed prolog of the job run still holding the node ends its other shares and
    // requeues it.
    SystemDrain(n, r.prolog_failed() ? "Prolog error" : "Epilog error");
    if (!r.prolog_failed() || !job || !HoldsResources(*job) || !n->jobs.count(job->job_id())) {
      return Status::Ok();
    }
    // The kill names this run: the requeued job's next run may reach a node first.
    for (const auto& a : job->alloc()) SendJobEndTo(a.node(), *job);
    if (job->completing() && !job->requeue_on_end()) {  // cancelled meanwhile
      ReleaseResources(job);
    } else {
      log_->warn("prolog failed, job requeued job_id={} node={}", job->job_id(), req.node());
      RequeueNow(job, "None");
    }
    return Status::Ok();
  }
  if (!job || !n || !n->jobs.count(job->job_id()) || !IsBatchHost(*job, req.node()) ||
      !SameRun(r, *job)) {
    return Status::Ok();  // stale or duplicate report: nothing to do
  }
  ApplyEndReport(job, req.report());
  return Status::Ok();
}

void Controller::OnLaunchResult(int64_t job_id, int32_t restarts, const std::string& node,
                                const Status& result) {
  auto it = launching_.find(job_id);
  if (it != launching_.end() && --it->second <= 0) launching_.erase(it);
  JobInfo* job = jobs_.Find(job_id);
  if (result.ok() || !job || job->restarts() != restarts || !HoldsResources(*job)) return;
  NodeRuntime* n = nodes_.Find(node);
  if (result.code() == Code::kUnknown) {
    // The run may be going there: starting it elsewhere could run it twice. The node
    // takes no new job and is asked to register again; its registration says whether
    // the run is there (ReconcileReports), or the node goes DOWN after SlurmdTimeout.
    log_->warn(
        "launch outcome unknown, job stays there until the node reports job_id={} "
        "node={} error={:?}",
        job_id, node, result.message());
    if (n) n->registered = false;
    return;
  }
  log_->warn("launch failed job_id={} node={} error={:?}", job_id, node, result.message());
  // An agent that could not be reached (restarting, or dead: the liveness check handles
  // that) is not drained but takes no new job until it registers again (its next
  // heartbeat is told to); one that answered with an error is drained.
  if (n && result.code() == Code::kUnavailable) {
    n->registered = false;
  } else if (n) {
    n->admin.drain = true;
    n->admin.reason = result.message().empty() ? "Launch failed" : result.message();
    n->admin.reason_time = Now();
    n->admin.reason_uid = 0;
    MarkNode(node);
  }
  // The failed node too: it may have half-started. The kill names this run, so it
  // cannot stop the requeued job's next run on a node it reaches first.
  for (const auto& a : job->alloc()) SendJobEndTo(a.node(), *job);
  if (job->completing() && !job->requeue_on_end()) {
    ReleaseResources(job);
  } else if (job->requeue_on_end()) {
    RequeueNow(job, "None");
  } else if (result.code() == Code::kUnavailable) {
    // Never delivered: this run did not start, and its node takes no job until it
    // registers again, so the retry does not count toward MaxBatchRequeue (a rack going
    // dark, its nodes not yet DOWN, must not use up a job's requeues node by node).
    const std::string cause = "launch not delivered to " + node;
    log_->warn("job requeued job_id={} cause={:?}", job_id, cause);
    RequeueNow(job, "None", cause);
  } else {  // the node is drained, so the next run avoids it
    AutoRequeueOrFail(job, fmt::format("launch failed on {}", node), "JobLaunchFailure");
  }
}

void Controller::OnSignalResult(const std::string& node, const SignalJobRequest& req,
                                const Status& result) {
  NodeRuntime* n = nodes_.Find(node);
  if (!n || result.ok()) return;
  bool maybe_delivered = result.code() == Code::kUnknown;
  if (result.code() != Code::kUnavailable && !maybe_delivered) return;  // refused
  // A signal the user asked for is delivered at most once; kills and cancels repeat.
  if (maybe_delivered && req.kind() == SIGNAL_DELIVER) return;
  if (n->unsent.size() >= kMaxUnsentPerNode) n->unsent.erase(n->unsent.begin());
  n->unsent.push_back(req);
}

bool Controller::SignalStillApplies(const NodeRuntime& n, const SignalJobRequest& req) const {
  const JobInfo* job = jobs_.Find(req.job_id());
  bool held_here = job && n.jobs.count(req.job_id());
  switch (req.kind()) {
    case SIGNAL_KILL_STALE:  // the node must not run the job (or that step) any more
      return req.has_step_id() || !held_here;
    case SIGNAL_CANCEL:  // of one step (scancel JOB.STEP): while that step runs
      if (req.has_step_id())
        return held_here && steps_.Find(req.job_id(), req.step_id()) != nullptr;
      return held_here && Ending(*job);
    case SIGNAL_DELIVER:
      return held_here && job->state() == JOB_RUNNING && !job->completing();
    default:
      return false;
  }
}

void Controller::ResendSignals(NodeRuntime* n) {
  if (n->unsent.empty()) return;
  std::vector<SignalJobRequest> unsent = std::move(n->unsent);
  n->unsent.clear();
  for (SignalJobRequest& req : unsent) {
    if (SignalStillApplies(*n, req)) SendSignalRequest(n->cfg.name, std::move(req));
  }
}

void Controller::SetNodeDown(NodeRuntime* n, bool admin, const std::string& reason, uint32_t uid) {
  if (admin) {
    n->admin.down = true;
    n->admin.reason = reason;
    n->admin.reason_time = Now();
    n->admin.reason_uid = uid;
    MarkNode(n->cfg.name);
  } else {
    log_->warn("node not responding, set DOWN node={}", n->cfg.name);
    n->responding = false;
    ++stats_.process.node_failures;
    RecordEvent(EventKind::kNodeFailure, nullptr, n->cfg.name,
                "node " + n->cfg.name + " not responding, set DOWN");
  }
  FailJobsOn(n);
  WantSchedule();
}

void Controller::FailJobsOn(NodeRuntime* n) {
  std::vector<int64_t> held(n->jobs.begin(), n->jobs.end());
  for (int64_t id : held) {
    if (JobInfo* job = jobs_.Find(id)) LoseJob(job, n->cfg.name);
  }
}

void Controller::CheckLiveness() {
  int64_t now_ms = clock_->NowMs();
  int64_t timeout_ms = int64_t{config_.slurmd_timeout_s} * 1000;
  for (auto& n : nodes_.nodes()) {
    if (!n.responding || timeout_ms <= 0) continue;
    if (now_ms - n.last_heartbeat_ms > timeout_ms) SetNodeDown(&n, false, "Not responding", 0);
  }
}

void Controller::CheckTimeLimits() {
  int64_t now = Now();
  for (JobInfo* job : jobs_.Running()) {
    const int64_t id = job->job_id();
    if (job->state() != JOB_RUNNING || job->completing() || job->time_limit_min() <= 0) continue;
    if (job->het_job_offset() > 0) continue;  // ends with its heterogeneous job's first component
    int64_t deadline = job->start_time() + job->time_limit_min() * 60;
    if (!job->spec().interactive()) deadline += config_.kill_wait_s + options_.timeout_grace_s;
    if (now <= deadline || backstop_sent_.count(id)) continue;
    backstop_sent_.insert(id);
    if (!job->spec().interactive()) {
      log_->warn("job far past its time limit, cancelling job_id={}", id);
    }
    StartCancel(job, JOB_TIMEOUT);
  }
}

void Controller::PurgeOldJobs() {
  int64_t now = Now();
  std::vector<int64_t> old;
  for (int64_t id : jobs_.NotPending()) {  // finished jobs are not pending
    const JobInfo& job = *jobs_.Find(id);
    // Not while its last record is still to be written (dirty) or being written.
    if (!IsTerminal(job.state()) || job.completing() || dirty_jobs_.count(id) ||
        writing_jobs_.count(id)) {
      continue;
    }
    if (job.end_time() + options_.min_job_age_s <= now) old.push_back(id);
  }
  for (int64_t id : old) {
    scripts_.Release(*jobs_.Find(id));
    jobs_.Erase(id);
    archive_jobs_.push_back(id);
  }
}

}  // namespace sluice::ctld
