#include "ctld/core/controller.h"

#include <grp.h>
#include <pwd.h>

#include <fmt/format.h>

#include "acct/job_records.h"
#include "ctld/components/scheduler_config.h"
#include "ctld/components/validate.h"

namespace sluice::ctld {
namespace {

std::string DefaultUserName(uint32_t uid) {
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res) return pw.pw_name;
  return std::to_string(uid);
}

std::string DefaultGroupName(uint32_t gid) {
  struct group gr, *res = nullptr;
  char buf[4096];
  if (getgrgid_r(gid, &gr, buf, sizeof buf, &res) == 0 && res) return gr.gr_name;
  return std::to_string(gid);
}

// The passwd and group lookups, where the options name none.
ControllerOptions WithDefaultNames(ControllerOptions o) {
  if (!o.user_name) o.user_name = DefaultUserName;
  if (!o.group_name) o.group_name = DefaultGroupName;
  return o;
}

}  // namespace

Controller::Controller(Config config, const Clock* clock, storage::StateStore* store,
                       AgentLink* agents, SchedDeps sched, ControllerOptions options)
    : config_(std::move(config)),
      clock_(clock),
      locked_store_(store ? std::make_unique<storage::LockedStateStore>(store) : nullptr),
      store_(locked_store_.get()),
      agents_(agents),
      sched_(std::move(sched)),
      options_(WithDefaultNames(std::move(options))),
      log_(options_.log ? options_.log : log::Stderr("sluicectld")),
      nodes_(config_) {
  start_ms_ = clock_->NowMs();
  last_session_ = start_ms_ * 1000;  // above every session an earlier instance gave
  stats_.Reset(start_ms_ / 1000);
  jobs_.CountInto(&stats_.jobs);
  for (auto& n : nodes_.nodes()) n.last_heartbeat_ms = start_ms_;
  assoc_db_.Seed(config_);
  knobs_ = SchedulerKnobsOf(config_);
}

Status Controller::Load(bool clean_start) {
  if (!store_) return Status::Ok();
  ASSIGN_OR_RETURN(storage::LoadedState st, store_->LoadAll());
  next_job_id_ = st.next_job_id;
  resvs_.Load(st.reservations);
  RETURN_IF_ERROR(LoadAssociations());
  for (const auto& rec : st.nodes) {
    if (NodeRuntime* n = nodes_.Find(rec.name)) n->admin = rec;
  }
  for (auto& job : st.jobs) {
    ASSIGN_OR_RETURN(bool moved_script, scripts_.Adopt(&job));  // an older version's record
    if (clean_start) {
      scripts_.Release(job);
      archive_jobs_.push_back(job.job_id());
      continue;
    }
    if (moved_script) MarkJob(job.job_id());
    auto req = BuildRequest(config_, job);
    if (req.ok()) {
      jobs_.SetRequest(job.job_id(), std::move(req).value());
    } else if (job.state() == JOB_PENDING) {
      job.set_reason("BadConstraints");
    }
    if (HoldsResources(job)) nodes_.Allocate(job, job.spec().exclusive());
    // Steps started after the last journaled block may have used ids up to the bound.
    job.set_next_step_id(std::max(job.next_step_id(), job.step_ids_reserved()));
    jobs_.Insert(std::move(job));
  }
  if (clean_start) next_id_dirty_ = true;
  WantSchedule();
  return Status::Ok();
}

Controller::PreparedCommit Controller::PrepareCommit() {
  SyncHetGroups();
  PreparedCommit c;
  c.has_store = store_ != nullptr;
  c.scripts = scripts_.AddTo(&c.batch);
  writing_jobs_.swap(dirty_jobs_);  // the last commit's, empty: cleared when it finished
  for (int64_t id : writing_jobs_) {
    if (const JobInfo* j = jobs_.Find(id)) c.batch.PutJob(*j);
  }
  c.archived.swap(archive_jobs_);
  for (int64_t id : c.archived) c.batch.ArchiveJob(id);
  c.nodes.assign(dirty_nodes_.begin(), dirty_nodes_.end());
  for (const auto& name : c.nodes) {
    if (const NodeRuntime* n = nodes_.Find(name)) c.batch.PutNode(n->admin);
  }
  c.next_id = next_id_dirty_;
  if (c.next_id) c.batch.SetNextJobId(next_job_id_);
  c.outbox.swap(outbox_);
  dirty_nodes_.clear();
  next_id_dirty_ = false;
  return c;
}

Status Controller::WriteCommit(PreparedCommit* c) const {
  if (!c->NeedsWrite()) return Status::Ok();
  if (options_.fault_hook) options_.fault_hook("commit");
  const int64_t start_us = RealClock::MonotonicUs();
  RETURN_IF_ERROR(store_->Write(c->batch));
  c->write_seconds = (RealClock::MonotonicUs() - start_us) / 1e6;
  if (options_.fault_hook) options_.fault_hook("committed");
  return Status::Ok();
}

std::vector<std::function<void()>> Controller::FinishCommit(PreparedCommit c,
                                                            const Status& written) {
  std::set<int64_t> jobs;
  jobs.swap(writing_jobs_);
  if (!written.ok()) {
    // Retried with the next commit, in the same order: these records and messages first.
    dirty_jobs_.insert(jobs.begin(), jobs.end());
    dirty_nodes_.insert(c.nodes.begin(), c.nodes.end());
    archive_jobs_.insert(archive_jobs_.begin(), c.archived.begin(), c.archived.end());
    next_id_dirty_ = next_id_dirty_ || c.next_id;
    outbox_.insert(outbox_.begin(), std::make_move_iterator(c.outbox.begin()),
                   std::make_move_iterator(c.outbox.end()));
    return {};
  }
  if (c.NeedsWrite()) {
    stats_.process.commit_seconds.Observe(c.write_seconds);
    stats_.process.commit_records.Observe(static_cast<double>(c.batch.size()));
  }
  scripts_.Committed(c.scripts);
  AcctAfterCommit(jobs, !c.nodes.empty());
  return std::move(c.outbox);
}

Status Controller::Commit() {
  PreparedCommit c = PrepareCommit();
  Status st = WriteCommit(&c);
  for (auto& send : FinishCommit(std::move(c), st)) send();
  return st;
}

void Controller::Tick() {
  CheckLiveness();
  CheckTimeLimits();
  CheckWarnSignals();
  CheckPreemptGrace();
  PurgeOldJobs();
  ExpireClientLeases();
}

bool Controller::RequeueAllowed(const JobInfo& job) const {
  if (job.spec().requeue() == 1) return true;
  if (job.spec().requeue() == 2) return false;
  return config_.job_requeue;
}

AgentAddress Controller::AddressOf(const std::string& node) const {
  const NodeRuntime* n = nodes_.Find(node);
  if (!n) return {node, node, config_.slurmd_port};
  return {node, n->addr, n->port};
}

void Controller::SendSignalTo(const std::string& node, int64_t job_id, SignalKind kind, int sig) {
  SignalJobRequest req;
  req.set_job_id(job_id);
  req.set_kind(kind);
  req.set_signal(sig);
  SendSignalRequest(node, std::move(req));
}

void Controller::SendJobEndTo(const std::string& node, const JobInfo& job) {
  SignalJobRequest req;
  req.set_job_id(job.job_id());
  req.set_kind(SIGNAL_KILL_STALE);
  *req.mutable_job() = job;
  SendSignalRequest(node, std::move(req));
}

void Controller::SendSignalRequest(const std::string& node, SignalJobRequest req) {
  AgentAddress to = AddressOf(node);
  SendAfterCommit([this, to, req = std::move(req)]() {
    agents_->Signal(to, req, [this, node = to.node, req](Status st) {
      if (!st.ok()) OnOwner([this, node, req, st] { OnSignalResult(node, req, st); });
    });
  });
}

void Controller::SendSignal(const JobInfo& job, SignalKind kind, int sig, bool all_nodes) {
  for (int i = 0; i < job.alloc_size(); ++i) {
    if (i > 0 && !all_nodes) break;
    SendSignalTo(job.alloc(i).node(), job.job_id(), kind, sig);
  }
}

void Controller::ReleaseResources(JobInfo* job) {
  nodes_.Release(*job, job->spec().exclusive());
  job->set_completing(false);
  launching_.erase(job->job_id());
  backstop_sent_.erase(job->job_id());
  MarkJob(job->job_id());
  WantSchedule();
}

// The reason Slurm shows for a finished job.
static std::string EndReason(JobState state, int exit_code, int term_signal) {
  switch (state) {
    case JOB_FAILED:
      if (term_signal != 0)
        return "JobLaunchFailure";  // what Slurm 22.05 shows (states/self_sigkill.txt)
      return exit_code != 0 ? "NonZeroExitCode" : "None";
    case JOB_TIMEOUT:
      return "TimeLimit";
    case JOB_NODE_FAIL:
      return "NodeDown";
    case JOB_OUT_OF_MEMORY:
      return "OutOfMemory";
    default:
      return "None";
  }
}

void Controller::FinishJob(JobInfo* job, JobState state, int exit_code, int term_signal) {
  if (job->start_time() > 0) runtimes_.Record(job->user(), Now() - job->start_time());
  jobs_.SetState(job, state);
  job->set_exit_code(exit_code);
  job->set_term_signal(term_signal);
  job->set_end_time(Now());
  job->set_reason(EndReason(state, exit_code, term_signal));
  ReleaseResources(job);
}

void Controller::RequeueNow(JobInfo* job, const std::string& reason, const std::string& cause) {
  std::string why = cause;
  if (why.empty() && job->preempted_by() > 0)
    why = "preempted by job " + std::to_string(job->preempted_by());
  RecordEvent(
      EventKind::kRequeue, job, job->alloc_size() > 0 ? job->alloc(0).node() : "",
      "job " + std::to_string(job->job_id()) + " requeued" + (why.empty() ? "" : ": " + why));
  if (HoldsResources(*job)) ReleaseResources(job);
  if (job->start_time() > 0) job->set_restarts(job->restarts() + 1);
  jobs_.SetState(job, JOB_PENDING);
  job->set_reason(reason);
  job->clear_alloc();
  job->set_start_time(0);
  job->set_end_time(0);
  job->set_exit_code(0);
  job->set_term_signal(0);
  job->set_completing(false);
  job->set_requeue_on_end(false);
  job->set_warn_signal_sent(false);
  job->clear_preempt_time();
  job->clear_preempt_kill_time();
  job->clear_preempted_by();
  job->clear_preempt_mode();
  job->clear_cancelled_by();
  job->set_stopped(false);
  job->set_eligible_time(Now());  // fresh priority age: no fixed requeue delay either
  if (job->hold_on_requeue()) HoldRequeued(job);
  MarkJob(job->job_id());
  WantSchedule();
}

void Controller::StartCancel(JobInfo* job, JobState state) {
  if (NoBatchScript(*job)) {                   // no batch supervisor to report the end
    SendSignal(*job, SIGNAL_CANCEL, 0, true);  // the agents end its steps
    FinishJob(job, state, 0, 0);
    job->set_reason("None");
    return;
  }
  jobs_.SetState(job, state);
  job->set_end_time(Now());
  job->set_reason("None");
  job->set_completing(true);
  SendSignal(*job, SIGNAL_CANCEL, 0, true);
  MarkJob(job->job_id());
}

void Controller::LoseJob(JobInfo* job, const std::string& lost_node, const std::string& cause) {
  // The surviving nodes of the allocation (the batch host too) drop their share.
  for (const auto& a : job->alloc()) {
    if (a.node() != lost_node) SendJobEndTo(a.node(), *job);
  }
  if (job->requeue_on_end()) {
    RequeueNow(job, "None");
  } else if (job->completing()) {
    ReleaseResources(job);
  } else {
    AutoRequeueOrFail(job, cause.empty() ? fmt::format("lost with node {}", lost_node) : cause,
                      "NodeDown");
  }
}

void Controller::ApplyEndReport(JobInfo* job, const JobReport& r) {
  if (r.max_rss_kb() > 0 || r.total_cpu_us() > 0 || r.gpu_usage().samples() > 0) {
    acct::StepUsage usage{r.max_rss_kb(), r.total_cpu_us(), "", ""};
    if (const GpuUsage& g = r.gpu_usage(); g.samples() > 0) {
      usage.tres_usage_in_ave = acct::GpuTresUsage(g.util_ave_pct(), g.mem_ave_mb());
      usage.tres_usage_in_max = acct::GpuTresUsage(g.util_max_pct(), g.mem_max_mb());
    }
    acct_.BatchUsage(job->job_id(), std::move(usage));
  }
  for (int i = 1; i < job->alloc_size(); ++i) SendJobEndTo(job->alloc(i).node(), *job);
  if (HandleNodeScripts(job, r)) return;
  if (EndPreempted(job)) return;
  if (job->requeue_on_end()) {
    RequeueNow(job, "None");
    return;
  }
  if (job->completing()) {  // cancelled or timed out while running: keep that state
    job->set_exit_code(r.exit_code());
    job->set_term_signal(r.term_signal());
    ReleaseResources(job);
    return;
  }
  // The batch host fenced itself (node_common/node_lease.h), or the job's stepd never started.
  if (r.state() == JOB_NODE_FAIL) {
    AutoRequeueOrFail(job, fmt::format("node failure on {}", job->alloc(0).node()), "NodeDown");
    return;
  }
  JobState st = r.state();
  if (!IsTerminal(st))
    st = (r.exit_code() == 0 && r.term_signal() == 0) ? JOB_COMPLETED : JOB_FAILED;
  if (RequeueOnExitCode(job, st, r)) return;
  FinishJob(job, st, r.exit_code(), r.term_signal());
  if (r.end_time() > 0) job->set_end_time(r.end_time());
}

}  // namespace sluice::ctld
