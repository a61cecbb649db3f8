#include "noded/agent.h"

#include <fstream>

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "common/version.h"
#include "node_common/job_dir.h"
#include "node_common/node_lease.h"
#include "node_common/unix_socket.h"
#include "noded/gpu_detect.h"

namespace sluice {
namespace {

JobReport RunningReport(int64_t job_id) {
  JobReport r;
  r.set_job_id(job_id);
  r.set_state(JOB_RUNNING);
  return r;
}

}  // namespace

int64_t HeartbeatIntervalMs(int heartbeat_interval_s, int slurmd_timeout_s) {
  int64_t s = heartbeat_interval_s > 0 ? heartbeat_interval_s : slurmd_timeout_s / 3;
  return std::clamp<int64_t>(s, 1, 30) * 1000;
}

Agent::Agent(AgentOptions options, const Clock* clock, ControllerLink* controller, JobTracker* jobs,
             StepdLauncher* launcher)
    : options_(std::move(options)),
      log_(options_.log ? options_.log : log::Stderr("sluiced")),
      clock_(clock),
      controller_(controller),
      jobs_(jobs),
      launcher_(launcher) {}

Status Agent::ValidateLaunch(const BatchLaunch& l) const {
  if (l.job_id() <= 0) return InvalidArgument("launch has no job id");
  if (l.job().spec().script().empty()) return InvalidArgument("launch has no batch script");
  if (!l.local().node().empty() && l.local().node() != options_.node_name) {
    return InvalidArgument(
        fmt::format("launch for node {} sent to node {}", l.local().node(), options_.node_name));
  }
  return Status::Ok();
}

// An existing directory for the job: keep it (idempotent launch) or replace a finished
// earlier run when this is a newer restart.
Status Agent::ReplaceOrKeep(const BatchLaunch& launch, bool* keep) {
  *keep = false;
  auto existing = jobs_->Inspect(launch.job_id());
  if (!existing.ok()) return Status::Ok();
  auto old = jobs_->ReadLaunch(launch.job_id());
  int old_restarts = old.ok() ? old->job().restarts() : -1;
  if (old_restarts >= launch.job().restarts()) {
    *keep = true;
    return Status::Ok();
  }
  if (existing->phase == TrackedJob::Phase::kRunning) {
    // The controller requeued the job: the old run is stale (its kill may still be on
    // its way), so end it here rather than failing the new launch.
    RETURN_IF_ERROR(KillOlderRun(launch.job_id(), 5000));
  }
  return jobs_->Remove(launch.job_id());
}

LaunchJobReply Agent::Launch(BatchLaunch launch, int64_t session) {
  LaunchJobReply reply;
  std::lock_guard<std::mutex> session_lock(session_mu_);
  if (session > 0 && session < session_) {
    log_->warn("launch refused: sent before this node registered again job_id={} run={}",
               launch.job_id(), launch.job().restarts());
    reply.set_stale(true);
    reply.set_error("sent before the node's last registration");
    return reply;
  }
  Status st = NotFenced();
  if (st.ok()) st = ValidateLaunch(launch);
  if (st.ok()) {
    launch.mutable_local()->set_node(options_.node_name);
    launch.set_cluster_name(options_.cluster_name);
    launch.set_conf_path(options_.conf_path);
    launch.set_ctld_host(options_.ctld_host);
    launch.set_ctld_port(options_.ctld_port);
    launch.set_def_mem_per_cpu_mb(options_.def_mem_per_cpu_mb);
    launch.set_agent_socket(options_.agent_socket);
    launch.set_relay_socket(options_.relay_socket);
    launch.set_fence_lease(options_.fence_lease);
    launch.set_prolog(options_.prolog);
    launch.set_epilog(options_.epilog);
    launch.set_prolog_epilog_timeout_s(options_.prolog_epilog_timeout_s);
    launch.set_gpu_sample_interval_s(options_.gpu_sample_interval_s);
    if (options_.constrain_devices) {
      for (std::string& f : OtherGpuFiles(options_.gpus, launch.local().gpu_ids())) {
        launch.add_deny_devices(std::move(f));
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    bool keep = false;
    st = ReplaceOrKeep(launch, &keep);
    if (st.ok() && !keep) st = jobs_->Create(launch);
    if (st.ok() && !keep) {
      const int64_t spawn_us = RealClock::MonotonicUs();
      auto pid = launcher_->Spawn(jobs_->DirFor(launch.job_id()));
      CountSpawn(pid.ok(), spawn_us);
      if (pid.ok()) {
        // The stepd also records itself; once it runs the launch has succeeded.
        if (Status rec = jobs_->RecordStepdPid(launch.job_id(), *pid); !rec.ok())
          log_->warn("cannot record the stepd pid job_id={} error={:?}", launch.job_id(),
                     rec.message());
        if (launch_hook_) launch_hook_(launch.job_id());
      } else {
        st = pid.status();
        jobs_->Remove(launch.job_id());
      }
    }
  }
  reply.set_ok(st.ok());
  if (!st.ok()) {
    reply.set_error(st.message());
    log_->error("launch failed job_id={} error={:?}", launch.job_id(), st.message());
  }
  return reply;
}

Status Agent::SendToStepd(int64_t job_id, const StepdRequest& req) {
  auto reply = CallStepd(jobs_->DirFor(job_id), req);
  if (!reply.ok()) return reply.status();
  if (!reply->ok()) return InvalidArgument(reply->error());
  return Status::Ok();
}

SignalJobReply Agent::Signal(const SignalJobRequest& req) {
  if (req.kind() == SIGNAL_DELIVER) return Deliver(req);
  SignalJobReply reply;
  if (req.kind() == SIGNAL_KILL_STALE && req.has_step_id()) {
    KillGivenUpStep(req.job_id(), req.step_id());
    return reply;
  }
  if (req.kind() == SIGNAL_CANCEL && req.has_step_id()) {  // scancel JOB.STEP: the job goes on
    SignalSteps(req.job_id(), SIGTERM, req.step_id());
    return reply;
  }
  // The kill of a lost run can arrive after the requeued job's next run was launched
  // here (both are sent at once): that run is not stale.
  if (req.kind() == SIGNAL_KILL_STALE && req.has_job()) {
    if (int32_t run = RunInSpool(req.job_id()); run > req.job().restarts()) {
      log_->info("kill of an older run ignored job_id={} run={} running={}", req.job_id(),
                 req.job().restarts(), run);
      return reply;
    }
  }
  if (req.kind() == SIGNAL_CANCEL || req.kind() == SIGNAL_KILL_STALE) {
    SignalSteps(req.job_id(), req.kind() == SIGNAL_CANCEL ? SIGTERM : SIGKILL);
  }
  if (req.kind() == SIGNAL_KILL_STALE) {  // non-batch nodes
    JobEpilog(req.job_id(), req.has_job() ? &req.job() : nullptr);
  }
  auto job = jobs_->Inspect(req.job_id());
  reply.set_found(job.ok());
  if (!job.ok()) return reply;
  if (req.kind() == SIGNAL_KILL_STALE) {
    KillStale(req.job_id(), req.has_job() ? req.job().restarts() : -1);
    return reply;
  }
  if (job->phase != TrackedJob::Phase::kRunning) return reply;
  StepdRequest sreq;
  if (req.kind() == SIGNAL_CANCEL) {
    sreq.set_op(STEPD_CANCEL);
  } else if (req.kind() == SIGNAL_DELIVER) {
    sreq.set_op(STEPD_SIGNAL);
    sreq.set_signal(req.signal());
    sreq.set_batch_only(req.batch_only());
  } else {
    return reply;
  }
  Status st = SendToStepd(req.job_id(), sreq);
  if (!st.ok()) log_->warn("signal failed job_id={} error={:?}", req.job_id(), st.message());
  return reply;
}

Status Agent::UpdateLimit(const UpdateJobLimitRequest& req) {
  StepdRequest sreq;
  sreq.set_op(STEPD_SET_TIME_LIMIT);
  sreq.set_time_limit_s(req.time_limit_s());
  return SendToStepd(req.job_id(), sreq);
}

void Agent::KillStale(int64_t job_id, int32_t reported_run) {
  std::lock_guard<std::mutex> lock(mu_);
  auto job = jobs_->Inspect(job_id);
  if (!job.ok()) return;
  if (int32_t run = RunInSpool(job_id); reported_run >= 0 && run > reported_run) {
    log_->info("kill of an older run ignored job_id={} run={} running={}", job_id, reported_run,
               run);
    return;
  }
  jobs_->MarkDone(job_id);  // never reported
  if (job->phase == TrackedJob::Phase::kRunning) {
    StepdRequest req;
    req.set_op(STEPD_KILL);
    Status st = SendToStepd(job_id, req);
    if (!st.ok())
      log_->warn("kill of a stale job failed job_id={} error={:?}", job_id, st.message());
  } else {
    jobs_->Remove(job_id);
  }
  log_->warn("killed a job unknown to the controller job_id={}", job_id);
}

// Scans the spool, turning lost stepds into failures and removing settled directories.
// A finished job's report names its run (the restart count in launch.pb), read under the
// same lock as its status: a launch of the job's next run may replace the directory as
// soon as the lock is released, and the old run's end must not be taken for the new one's.
std::vector<TrackedJob> Agent::ScanAndSettle() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TrackedJob> out;
  for (TrackedJob& job : jobs_->Scan()) {
    if (job.phase == TrackedJob::Phase::kDone) {
      jobs_->Remove(job.job_id);
      continue;
    }
    if (job.phase != TrackedJob::Phase::kLost) {
      suspect_lost_ms_.erase(job.job_id);
    } else {
      auto it = suspect_lost_ms_.try_emplace(job.job_id, clock_->NowMs()).first;
      if (clock_->NowMs() - it->second < kLostConfirmMs) {
        job.phase = TrackedJob::Phase::kRunning;  // until confirmed
        out.push_back(std::move(job));
        continue;
      }
      suspect_lost_ms_.erase(it);
      std::ifstream stepd_log(JobDir(job.dir).Log());
      std::string last, line;
      while (std::getline(stepd_log, line)) last = line;
      const bool started = job.stepd_pid > 0;
      if (started) {
        log_->error("stepd vanished without a status, job failed job_id={} pid={} last_line={:?}",
                    job.job_id, job.stepd_pid, last);
      } else {
        log_->error("stepd never started (the launch was cut short), node failure job_id={}",
                    job.job_id);
      }
      jobs_->MarkLost(job.job_id, started);
      auto again = jobs_->Inspect(job.job_id);
      if (!again.ok()) continue;
      job = std::move(again).value();
    }
    bool reportable =
        job.phase == TrackedJob::Phase::kFinished || job.phase == TrackedJob::Phase::kRunning;
    if (reportable && !job.report.has_restarts()) {
      if (int32_t run = RunInSpool(job.job_id); run >= 0) job.report.set_restarts(run);
    }
    out.push_back(std::move(job));
  }
  return out;
}

void Agent::Register() {
  std::lock_guard<std::mutex> session_lock(session_mu_);
  RegisterNodeRequest req;
  req.set_node(options_.node_name);
  req.set_version(SluiceVersion());
  req.set_addr(options_.addr);
  req.set_port(options_.port);
  req.set_cpus(options_.cpus);
  req.set_real_memory_mb(options_.real_memory_mb);
  for (const GpuInfo& g : options_.gpus) *req.add_gpus() = g;
  req.set_boot_time(options_.boot_time);
  for (const TrackedJob& job : ScanAndSettle()) {
    JobReport* r = req.add_jobs();
    *r = job.phase == TrackedJob::Phase::kRunning ? RunningReport(job.job_id) : job.report;
    if (int32_t run = RunInSpool(job.job_id); run >= 0) r->set_restarts(run);
  }
  ReportSteps(&req);
  if (health_ && health_->Current().seq() > 0) *req.mutable_health() = health_->Current();
  if (gpu_monitor_) *req.mutable_gpu_health() = gpu_monitor_->Current();
  req.set_gres_error(options_.gres_error);
  int64_t sent_ms = clock_->NowMs();
  auto reply = controller_->Register(req);
  RenewLease(reply.status(), sent_ms);
  CountCall(reply.ok());
  if (!reply.ok()) {
    log_->warn("registration failed error={:?}", reply.status().message());
    next_heartbeat_ms_ = clock_->NowMs() + options_.retry_interval_ms;
    return;
  }
  registered_ = true;
  session_ = reply->session();
  if (health_) health_->SetAllocatedCpus(reply->alloc_cpus());
  next_heartbeat_ms_ = clock_->NowMs() + options_.heartbeat_interval_ms;
  log_->info("registered with the controller jobs={}", req.jobs_size());
  std::map<int64_t, int32_t> reported;
  for (const JobReport& r : req.jobs()) reported[r.job_id()] = r.has_restarts() ? r.restarts() : -1;
  for (int64_t id : reply->kill_job_ids()) KillStale(id, reported[id]);
}

void Agent::Heartbeat() {
  HeartbeatRequest req;
  req.set_node(options_.node_name);
  req.set_sent_ms(clock_->NowMs());
  std::map<int64_t, int32_t> reported;  // the run of each job listed
  for (const TrackedJob& job : ScanAndSettle()) {
    if (job.phase != TrackedJob::Phase::kRunning) continue;
    req.add_running_job_ids(job.job_id);
    reported[job.job_id] = job.report.has_restarts() ? job.report.restarts() : -1;
  }
  if (health_ && health_->Current().seq() > 0) *req.mutable_health() = health_->Current();
  if (gpu_monitor_) *req.mutable_gpu_health() = gpu_monitor_->Current();
  int64_t sent_ms = clock_->NowMs();
  auto reply = controller_->Heartbeat(req);
  RenewLease(reply.status(), sent_ms);
  CountCall(reply.ok());
  if (!reply.ok()) {
    log_->warn("heartbeat failed error={:?}", reply.status().message());
    registered_ = false;  // register again once the controller is back
    next_heartbeat_ms_ = clock_->NowMs() + options_.retry_interval_ms;
    return;
  }
  next_heartbeat_ms_ = clock_->NowMs() + options_.heartbeat_interval_ms;
  if (health_) health_->SetAllocatedCpus(reply->alloc_cpus());
  for (int64_t id : reply->kill_job_ids()) KillStale(id, reported[id]);
  if (reply->reregister()) {
    registered_ = false;
    Register();
  }
}

void Agent::CountCall(bool answered) {
  if (!metrics_) return;
  if (answered) {
    metrics_->ControllerAnswered(clock_->NowMs());
  } else {
    metrics_->ControllerCallFailed();
  }
}

void Agent::CountSpawn(bool ok, int64_t start_us) {
  if (!metrics_) return;
  if (ok) {
    metrics_->StepdSpawned(static_cast<double>(RealClock::MonotonicUs() - start_us) / 1e6);
  } else {
    metrics_->StepdSpawnFailed();
  }
}

AgentMetrics::Gauges Agent::MetricsGauges() {
  AgentMetrics::Gauges g;
  g.registered = registered_;
  for (const TrackedJob& job : jobs_->Scan())
    g.running_jobs += job.phase == TrackedJob::Phase::kRunning;
  std::lock_guard<std::mutex> lock(mu_);
  g.running_steps = static_cast<int>(steps_.size());
  if (gpu_monitor_) {
    GpuHealth health = gpu_monitor_->Current();
    g.gpu_faults.assign(health.faults().begin(), health.faults().end());
  }
  return g;
}

void Agent::RenewLease(const Status& outcome, int64_t sent_ms) {
  if (options_.fence_lease.empty() || options_.slurmd_timeout_ms <= 0) return;
  if (!outcome.ok() && !ControllerNotListening(outcome)) return;
  // A refusal may be the channel's last connect error, reported again until its next
  // attempt: it shows the controller down only as of that attempt.
  if (!outcome.ok()) sent_ms -= kRefusalAgeMs;
  Status st =
      RenewNodeLease(options_.fence_lease, LeaseUntilMs(sent_ms, options_.slurmd_timeout_ms));
  if (!st.ok()) log_->error("cannot renew the node lease error={:?}", st.message());
}

bool Agent::Fenced() const {
  if (options_.fence_lease.empty() || options_.slurmd_timeout_ms <= 0) return false;
  auto until = ReadNodeLease(options_.fence_lease);
  return until && clock_->NowMs() >= *until;
}

Status Agent::NotFenced() const {
  if (!Fenced()) return Status::Ok();
  return Unavailable("node fenced: its lease ran out without contact with the controller");
}

// The restart count of the job's run in the spool (-1: none readable).
int32_t Agent::RunInSpool(int64_t job_id) const {
  auto launch = jobs_->ReadLaunch(job_id);
  return launch.ok() ? launch->job().restarts() : -1;
}

void Agent::ReportEnds() {
  for (const TrackedJob& job : ScanAndSettle()) {
    if (job.phase != TrackedJob::Phase::kFinished) continue;
    int32_t run = job.report.has_restarts() ? job.report.restarts() : -1;  // ScanAndSettle
    JobEndedRequest req;
    req.set_node(options_.node_name);
    *req.mutable_report() = job.report;
    Status st = controller_->JobEnded(req);
    if (!st.ok()) {
      log_->warn("job end report failed, will retry job_id={} error={:?}", job.job_id,
                 st.message());
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    // While the report was on its way the controller may have requeued the job and
    // launched its next run here, replacing the directory: that one is not ours to remove.
    if (RunInSpool(job.job_id) != run) continue;
    jobs_->MarkDone(job.job_id);
    jobs_->Remove(job.job_id);
  }
}

void Agent::Tick() {
  launcher_->Reap();
  bool fenced = Fenced();
  if (fenced && !fenced_logged_) {
    log_->error(
        "the node lease ran out without contact with the controller: its jobs are killed "
        "(fenced) before the controller may run them elsewhere");
    registered_ = false;
  }
  fenced_logged_ = fenced;
  if (register_soon_.exchange(false)) registered_ = false;
  if (!registered_) {
    heartbeat_soon_ = false;
    Register();
  } else if (heartbeat_soon_.exchange(false) || clock_->NowMs() >= next_heartbeat_ms_) {
    Heartbeat();
  }
  if (registered_) ReportEnds();
}

void Agent::HeartbeatSoon() {
  heartbeat_soon_ = true;
  Wake();
}

void Agent::RegisterSoon(const std::string& controller) {
  if (!controller.empty()) controller_->Prefer(controller);
  register_soon_ = true;
  Wake();
}

void Agent::Wake() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  woken_ = true;
  wake_cv_.notify_one();
}

void Agent::Run(const std::atomic<bool>& stop) {
  while (!stop) {
    Tick();
    int64_t wait_ms = std::clamp<int64_t>(next_heartbeat_ms_ - clock_->NowMs(), 10,
                                          options_.heartbeat_interval_ms);
    std::unique_lock<std::mutex> lock(wake_mu_);
    wake_cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return woken_ || stop; });
    woken_ = false;
  }
}

}  // namespace sluice
