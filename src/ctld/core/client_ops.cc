// Client API operations of the Controller (see controller.h).
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <unordered_set>

#include "common/array_spec.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "ctld/components/job_query.h"
#include "ctld/components/private_data.h"
#include "ctld/components/step_layout.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "rpc/field_copier.h"

namespace sluice::ctld {
namespace {

constexpr char kMsgJobPending[] = "Job is pending execution";

CancelResult Result(int64_t id, const Status& st) {
  CancelResult r;
  r.set_job_id(id);
  r.set_code(static_cast<int32_t>(st.code()));
  r.set_message(st.message());
  return r;
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// A CancelRequest that ends jobs (no signal, or KILL) rather than signalling them.
bool EndsJobs(const CancelRequest& req) { return req.signal() == 0 || req.signal() == 9; }

}  // namespace

Expected<JobInfo> Controller::NewJob(const Caller& caller, const JobSpec& spec) {
  JobInfo job;
  *job.mutable_spec() = spec;
  if (job.spec().nice() < 0 && !access_.IsAdmin(caller)) return PermissionDenied(kMsgAccessDenied);
  RETURN_IF_ERROR(NormalizeJob(config_, &job));
  job.set_uid(caller.uid);
  job.set_gid(caller.gid);
  job.set_user(options_.user_name(caller.uid));
  job.set_group(options_.group_name(caller.gid));
  FillDefaultAccount(&job);
  RETURN_IF_ERROR(CheckSubmitAccess(&job));
  return job;
}

Expected<SubmitReply> Controller::Submit(const Caller& caller, const SubmitRequest& req) {
  if (req.het_components_size() > 0) return SubmitHet(caller, req);
  ASSIGN_OR_RETURN(JobInfo job, NewJob(caller, req.spec()));
  job.set_job_id(next_job_id_);
  ASSIGN_OR_RETURN(std::vector<int64_t> tasks, ParseArrayAndDeps(&job));
  RETURN_IF_ERROR(CheckAssocSubmit(&job, tasks.empty() ? 1 : static_cast<int64_t>(tasks.size())));
  ASSIGN_OR_RETURN(sched::JobRequest request, BuildRequest(config_, job));
  sched::Decision feas = sched_.check_feasible(nodes_.Snapshot(true), request);
  if (feas.outcome == sched::Outcome::kNever) {
    return InvalidArgument(feas.reason.empty() ? kMsgNodeConfig : feas.reason);
  }
  SubmitReply reply;
  if (req.test_only()) {
    reply.set_test_only_message(TestOnlyMessage(job));
    return reply;
  }
  int64_t now = Now();
  job.set_state(JOB_PENDING);
  job.set_submit_time(now);
  job.set_eligible_time(std::max(now, job.spec().begin_time()));  // sbatch --begin
  bool held = job.spec().hold();
  job.set_priority(held ? 0 : 1);
  job.set_reason(held ? "JobHeldUser" : job.spec().begin_time() > now ? "BeginTime" : "None");
  request.priority = job.priority();
  request.submit_time = now;
  reply.set_job_id(job.job_id());
  // srun/salloc wait for their allocation: their pass runs right after this commit.
  bool urgent = job.spec().interactive();
  InsertSubmitted(std::move(job), std::move(request), tasks);
  stats_.jobs.submitted += tasks.empty() ? 1 : static_cast<int64_t>(tasks.size());
  if (!held) WantSchedule(urgent);  // a held job cannot start: no pass for it
  return reply;
}

Expected<GetStatsReply> Controller::GetStats(const Caller& caller, bool reset) {
  if (reset && !access_.IsAdmin(caller)) return PermissionDenied(kMsgAccessDenied);
  GetStatsReply reply;
  reply.set_now(Now());
  reply.set_start_time(start_ms_ / 1000);
  stats_.Fill(&reply);
  // From the index of the jobs not pending: no walk over the pending queue.
  reply.set_jobs_pending(static_cast<int64_t>(jobs_.PendingCount()));
  for (int64_t id : jobs_.NotPending())
    if (jobs_.Find(id)->state() == JOB_RUNNING) reply.set_jobs_running(reply.jobs_running() + 1);
  int64_t launches = 0;
  for (const auto& [id, n] : launching_) launches += n;
  reply.set_agent_queue_size(launches);
  reply.set_acct_queue_size(acct_.QueueSize());
  if (reset) stats_.Reset(Now());
  return reply;
}

std::string Controller::Metrics(const Caller& caller, MetricsArea area,
                                std::map<std::string, RpcStats::Method> rpcs) const {
  MetricsSources in{&config_,
                    &jobs_,
                    &nodes_,
                    &stats_,
                    std::move(rpcs),
                    clock_->NowMs(),
                    !access_.HidesAnything(caller)};
  return RenderMetrics(in, area);
}

std::string Controller::TestOnlyMessage(const JobInfo& job) {
  const sched::JobRequest req = *BuildRequest(config_, job);
  sched::ClusterSnapshot snap = nodes_.Snapshot(false);
  sched::Decision d;
  if (sched_.scheduler) d = sched_.scheduler->Schedule(snap, {req}, Now()).decisions.at(0);
  if (d.outcome != sched::Outcome::kStartNow) d = sched_.check_feasible(nodes_.Snapshot(true), req);
  std::vector<std::string> names;
  int procs = 0;
  for (const auto& s : d.alloc) {
    names.push_back(s.node);
    const NodeRuntime* n = nodes_.Find(s.node);
    procs += req.exclusive && n ? n->cfg.cpus : static_cast<int>(s.cpu_ids.size());
  }
  return fmt::format("Job {} to start at {} using {} processors on nodes {} in partition {}",
                     job.job_id(), FormatTimestamp(Now()), procs, CompressHostlistSorted(names),
                     job.spec().partition());
}

Expected<GetJobsReply> Controller::GetJobs(const GetJobsRequest& req, const Caller* viewer) const {
  GetJobsReply reply;
  reply.set_now(Now());
  // job_id and uid whatever the mask: HidePrivate (PrivateData) filters the reply by uid.
  ASSIGN_OR_RETURN(const FieldCopier copier,
                   FieldCopier::Build(JobInfo::descriptor(), req.fields(), {"job_id", "uid"}));
  Status failed;
  struct Compressed {
    int record = 0;              // its record in the reply (the first pending task's)
    int throttle = 0;            // the array's %N
    std::vector<int64_t> tasks;  // the pending task ids it stands for
  };
  std::unordered_map<int64_t, Compressed> compressed;  // by array job id
  auto add = [&](const JobInfo& job) {
    if (!MatchesJobQuery(job, req)) return;
    if (req.compress_pending_tasks() && job.array_job_id() != 0 && job.state() == JOB_PENDING) {
      auto [it, first] = compressed.try_emplace(job.array_job_id());
      it->second.tasks.push_back(job.array_task_id());
      if (!first) return;
      it->second.record = reply.jobs_size();
      it->second.throttle = job.array_throttle();
    }
    JobInfo* out = reply.add_jobs();
    copier.Copy(job, out);
    if (!req.with_script_env()) return;
    Expected<JobScript> s = scripts_.Get(job);
    if (!s.ok()) {
      failed = s.status();
      return;
    }
    out->mutable_spec()->set_script(s->script());
    *out->mutable_spec()->mutable_env() = s->env();
  };
  if (!req.job_ids().empty() || !req.array_tasks().empty()) {
    // Not found only when no id names a job or array; the filters may then leave none.
    bool any = false;
    std::unordered_set<int64_t> sent;
    auto add_once = [&](const JobInfo& j) {
      if (sent.insert(j.job_id()).second) add(j);
    };
    std::vector<int64_t> ids(req.job_ids().begin(), req.job_ids().end());
    for (int64_t id : ExpandJobIds(ids, false)) {
      if (const JobInfo* j = jobs_.Find(id)) {
        any = true;
        add_once(*j);
      }
    }
    for (const ArrayTaskSelector& sel : req.array_tasks()) {
      // Tasks have consecutive ids in ascending task order: task T of an array whose first
      // task is F is found at id + T - F unless tasks between were skipped (a step) or
      // purged; only then are all the array's tasks walked.
      std::vector<const JobInfo*> found;
      std::unordered_set<int64_t> wanted;
      const JobInfo* head = jobs_.Find(sel.array_job_id());
      const bool array = head && head->array_job_id() == sel.array_job_id();
      for (int64_t task : sel.task_ids()) {
        const JobInfo* j =
            array ? jobs_.Find(sel.array_job_id() + task - head->array_task_id()) : nullptr;
        if (j && j->array_job_id() == sel.array_job_id() && j->array_task_id() == task) {
          found.push_back(j);
        } else {
          wanted.insert(task);
        }
      }
      if (!found.empty()) any = true;
      if (!wanted.empty() || sel.task_ids_size() == 0) {
        std::vector<int64_t> tasks = ArrayTaskIds(sel.array_job_id());
        any = any || !tasks.empty();
        for (int64_t id : tasks) {
          const JobInfo* j = jobs_.Find(id);
          if (wanted.count(j->array_task_id())) found.push_back(j);
        }
      }
      std::sort(found.begin(), found.end(),
                [](const JobInfo* x, const JobInfo* y) { return x->job_id() < y->job_id(); });
      for (const JobInfo* j : found) add_once(*j);
    }
    if (!any) return NotFound(kMsgInvalidJobId);
  } else if (std::optional<std::vector<int64_t>> ids = JobQueryCandidates(jobs_, req)) {
    for (int64_t id : *ids) add(*jobs_.Find(id));
  } else {
    for (const auto& [id, job] : jobs_.jobs()) add(job);
  }
  if (!failed.ok()) return failed;
  for (auto& [array, c] : compressed) {
    JobInfo* rec = reply.mutable_jobs(c.record);
    if (c.tasks.size() > 1) {
      rec->set_array_task_str(PendingTasksString(std::move(c.tasks), c.throttle));
    }
  }
  if (req.explain()) Explain(&reply, viewer);
  return reply;
}

Status Controller::CheckOwner(const Caller& c, const JobInfo* job) const {
  if (!job) return NotFound(kMsgInvalidJobId);
  if (!access_.IsOperator(c) && job->uid() != c.uid) return PermissionDenied(kMsgAccessDenied);
  return Status::Ok();
}

bool Controller::CancelMatches(const JobInfo& job, const CancelRequest& req) const {
  if (!req.user().empty() && req.user() != job.user() && req.user() != std::to_string(job.uid())) {
    return false;
  }
  if (!req.name().empty() && req.name() != job.spec().name()) return false;
  if (!req.partition().empty() && req.partition() != job.spec().partition()) return false;
  if (!req.states().empty() &&
      std::find(req.states().begin(), req.states().end(), job.state()) == req.states().end()) {
    return false;
  }
  return true;
}

CancelResult Controller::CancelOne(const Caller& c, JobInfo* job, const CancelRequest& req) {
  if (EndsJobs(req)) job = HetFirst(job);  // the whole heterogeneous job
  int64_t id = job->job_id();
  Status own = CheckOwner(c, job);
  if (!own.ok()) return Result(id, own);
  if (IsTerminal(job->state()) || job->state() == JOB_COMPLETING) {
    return Result(id, FailedPrecondition(kMsgAlreadyDone));
  }
  if (!EndsJobs(req)) {
    if (job->state() == JOB_PENDING) return Result(id, FailedPrecondition(kMsgJobPending));
    DeliverSignal(*job, req.signal(), req.batch_only(), req.full());
    if (!req.batch_only() && (req.signal() == SIGSTOP || req.signal() == SIGCONT) &&
        job->stopped() != (req.signal() == SIGSTOP)) {
      job->set_stopped(req.signal() == SIGSTOP);  // Slurm's STOPPED state, as squeue shows it
      MarkJob(id);
    }
    return Result(id, Status::Ok());
  }
  job->set_cancelled_by(c.uid);  // sacct: "CANCELLED by <uid>"
  if (job->state() == JOB_PENDING) {
    EndPending(job, JOB_CANCELLED);
  } else {
    StartCancel(job, JOB_CANCELLED);
  }
  return Result(id, Status::Ok());
}

CancelResult Controller::CancelStep(const Caller& caller, const StepRef& ref, int signal) {
  const JobInfo* job = jobs_.Find(ref.job_id());
  Status st = CheckOwner(caller, job);
  const ActiveStep* step = st.ok() ? steps_.Find(ref.job_id(), ref.step_id()) : nullptr;
  if (st.ok() && (job->state() != JOB_RUNNING || Ending(*job) || step == nullptr)) {
    st = NotFound(kMsgInvalidJobId);
  }
  CancelResult r = Result(ref.job_id(), st);
  r.set_step_id(ref.step_id());
  if (!st.ok()) return r;
  for (const StepNodeUse& use : step->use) {
    SignalJobRequest req;
    req.set_job_id(ref.job_id());
    req.set_step_id(ref.step_id());
    req.set_kind(signal == 0 || signal == SIGKILL ? SIGNAL_CANCEL : SIGNAL_DELIVER);
    req.set_signal(signal);
    SendSignalRequest(use.node, std::move(req));
  }
  return r;
}

CancelReply Controller::Cancel(const Caller& caller, const CancelRequest& req) {
  CancelReply reply;
  for (const StepRef& step : req.steps())
    *reply.add_results() = CancelStep(caller, step, req.signal());
  if (!req.steps().empty() && req.job_ids().empty() && req.exact_job_ids().empty()) return reply;
  if (!req.job_ids().empty() || !req.exact_job_ids().empty()) {
    std::vector<int64_t> ids(req.job_ids().begin(), req.job_ids().end());
    ids = ExpandJobIds(ids, true);
    ids.insert(ids.end(), req.exact_job_ids().begin(), req.exact_job_ids().end());
    for (int64_t id : ids) {
      JobInfo* job = jobs_.Find(id);
      if (!job) {
        *reply.add_results() = Result(id, NotFound(kMsgInvalidJobId));
      } else if (CancelMatches(*job, req)) {
        *reply.add_results() = CancelOne(caller, job, req);
      }
    }
    return reply;
  }
  const bool op = access_.IsOperator(caller);
  for (auto& [id, job] : jobs_.jobs()) {
    if (IsTerminal(job.state()) || !CancelMatches(job, req)) continue;
    if (!op && job.uid() != caller.uid) continue;
    if (job.het_job_offset() > 0 && EndsJobs(req)) continue;  // ended with its first component
    *reply.add_results() = CancelOne(caller, &job, req);
  }
  return reply;
}

Expected<GetNodesReply> Controller::GetNodes(const GetNodesRequest& req) const {
  GetNodesReply reply;
  reply.set_now(Now());
  auto wanted = [&](const NodeRuntime& n) {  // in any partition asked (sinfo -p)
    if (req.partitions().empty()) return true;
    for (const std::string& p : n.partitions)
      if (std::find(req.partitions().begin(), req.partitions().end(), p) != req.partitions().end())
        return true;
    return false;
  };
  if (req.names().empty()) {
    for (const auto& n : nodes_.nodes())
      if (wanted(n)) *reply.add_nodes() = nodes_.ToInfo(n, Now());
    return reply;
  }
  for (const auto& name : req.names()) {
    const NodeRuntime* n = nodes_.Find(name);
    if (!n) return NotFound(fmt::format("Node {} not found", name));
    if (wanted(*n)) *reply.add_nodes() = nodes_.ToInfo(*n, Now());
  }
  return reply;
}

GetPartitionsReply Controller::GetPartitions() const {
  GetPartitionsReply reply;
  for (const auto& p : config_.partitions) {
    PartitionInfo* pi = reply.add_partitions();
    pi->set_name(p.name);
    for (const auto& n : p.nodes) pi->add_nodes(n);
    pi->set_nodes_expr(p.nodes_expr);
    pi->set_is_default(p.is_default);
    pi->set_max_time_min(p.max_time_min);
    pi->set_default_time_min(p.default_time_min);
    pi->set_up(p.up);
    pi->set_max_nodes(p.max_nodes);
    pi->set_priority_tier(p.priority_tier);
    pi->set_priority_job_factor(p.priority_job_factor);
    auto join = [](const std::vector<std::string>& v) {
      std::string out;
      for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
      return out;
    };
    pi->set_allow_accounts(join(p.allow_accounts));
    pi->set_deny_accounts(join(p.deny_accounts));
    pi->set_allow_qos(join(p.allow_qos));
    pi->set_allow_groups(join(p.allow_groups));
    pi->set_exclusive(p.exclusive);
    pi->set_preempt_mode(PreemptModeName(
        p.preempt_mode == PreemptMode::kCluster ? config_.preempt_mode : p.preempt_mode));
    pi->set_grace_time_s(p.grace_time_s);
  }
  return reply;
}

Status Controller::UpdateNode(const Caller& caller, const UpdateNodeRequest& req) {
  if (!access_.IsAdmin(caller)) return PermissionDenied(kMsgAccessDenied);
  std::string state = Upper(req.state());
  if (state != "DRAIN" && state != "DOWN" && state != "RESUME" && state != "IDLE" &&
      state != "UNDRAIN") {
    return InvalidArgument(kMsgBadNodeState);
  }
  if ((state == "DRAIN" || state == "DOWN") && req.reason().empty()) {
    return InvalidArgument(kMsgNeedReason);
  }
  std::vector<NodeRuntime*> targets;
  for (const auto& name : req.names()) {
    NodeRuntime* n = nodes_.Find(name);
    if (!n) return NotFound(kMsgBadNodeName);
    targets.push_back(n);
  }
  for (NodeRuntime* n : targets) {
    if (state == "DOWN") {
      SetNodeDown(n, true, req.reason(), caller.uid);
      continue;
    }
    if (state == "DRAIN") {
      n->admin.drain = true;
      n->admin.reason = req.reason();
      n->admin.reason_time = Now();
      n->admin.reason_uid = caller.uid;
    } else {
      n->admin.drain = false;
      if (state != "UNDRAIN") n->admin.down = false;
      if (!n->admin.down) n->admin.reason.clear();
    }
    MarkNode(n->cfg.name);
  }
  WantSchedule();
  return Status::Ok();
}

Status Controller::UpdateJob(const Caller& caller, const UpdateJobRequest& req) {
  if (req.job_ids().empty() && req.exact_job_ids().empty()) {
    return InvalidArgument(kMsgInvalidJobId);
  }
  Status first;
  std::vector<int64_t> ids(req.job_ids().begin(), req.job_ids().end());
  bool pending_only = req.action() == JOB_ACTION_HOLD || req.action() == JOB_ACTION_UHOLD ||
                      req.action() == JOB_ACTION_RELEASE;
  std::vector<int64_t> targets = ExpandJobIds(ids, true);
  size_t expanded_end = targets.size();
  targets.insert(targets.end(), req.exact_job_ids().begin(), req.exact_job_ids().end());
  for (size_t i = 0; i < targets.size(); ++i) {
    int64_t id = targets[i];
    JobInfo* job = jobs_.Find(id);
    bool expanded = i < expanded_end && job && job->array_job_id() != 0 &&
                    ArrayTaskIds(job->array_job_id()).size() > 1;
    if (pending_only && expanded && job->state() != JOB_PENDING) {
      continue;  // holding/releasing an array touches its pending tasks only
    }
    Status st = CheckOwner(caller, job);
    if (st.ok()) st = UpdateOne(caller, job, req);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

Status Controller::UpdateOne(const Caller& c, JobInfo* job, const UpdateJobRequest& req) {
  switch (req.action()) {
    case JOB_ACTION_HOLD:
      return Hold(c, job, !access_.IsAdmin(c));
    case JOB_ACTION_UHOLD:
      return Hold(c, job, true);
    case JOB_ACTION_RELEASE:
      return Release(c, job);
    case JOB_ACTION_REQUEUE:
      return Requeue(c, job);
    case JOB_ACTION_REQUEUE_HOLD:
      return Requeue(c, job, true);
    default:
      break;
  }
  bool done = IsTerminal(job->state()) || job->completing();
  if (req.set_time_limit()) RETURN_IF_ERROR(UpdateTimeLimit(c, job, req.time_limit_min()));
  if (!req.name().empty() || !req.comment().empty()) {
    if (done) return FailedPrecondition(kMsgAlreadyDone);
    if (!req.name().empty()) job->mutable_spec()->set_name(req.name());
    if (!req.comment().empty()) job->mutable_spec()->set_comment(req.comment());
    MarkJob(job->job_id());
  }
  return Status::Ok();
}

Status Controller::UpdateTimeLimit(const Caller& c, JobInfo* job, int64_t minutes) {
  if (IsTerminal(job->state()) || Ending(*job)) {
    return FailedPrecondition(kMsgAlreadyDone);
  }
  if (minutes == 0 || minutes < -1 || minutes > kMaxTimeLimitMin)
    return InvalidArgument(kMsgBadTimeLimit);
  int64_t old = job->time_limit_min();
  bool increase = (minutes == -1 && old != -1) || (old != -1 && minutes > old);
  if (!access_.IsAdmin(c) && increase) return PermissionDenied(kMsgAccessDenied);
  job->set_time_limit_min(minutes);
  if (auto* r = jobs_.MutableRequest(job->job_id())) {
    r->time_limit_s = minutes > 0 ? minutes * 60 : 0;
  }
  backstop_sent_.erase(job->job_id());
  if (job->state() == JOB_RUNNING) {
    for (const auto& a : job->alloc()) {
      UpdateJobLimitRequest u;
      u.set_job_id(job->job_id());
      u.set_time_limit_s(minutes > 0 ? minutes * 60 : 0);
      AgentAddress to = AddressOf(a.node());
      SendAfterCommit([this, to, u]() { agents_->UpdateLimit(to, u); });
    }
  }
  MarkJob(job->job_id());
  WantSchedule();
  return Status::Ok();
}

Status Controller::Hold(const Caller& c, JobInfo* job, bool user_hold) {
  if (job->state() != JOB_PENDING) return FailedPrecondition(kMsgNotPending);
  job->set_priority(0);
  job->set_held_by_admin(!user_hold);
  job->set_reason(user_hold ? "JobHeldUser" : "JobHeldAdmin");
  if (auto* r = jobs_.MutableRequest(job->job_id())) r->priority = 0;
  MarkJob(job->job_id());
  return Status::Ok();
}

Status Controller::Release(const Caller& c, JobInfo* job) {
  if (job->state() != JOB_PENDING) return FailedPrecondition(kMsgNotPending);
  if (job->held_by_admin() && !access_.IsAdmin(c)) return PermissionDenied(kMsgAccessDenied);
  if (job->priority() == 0) {
    job->set_priority(1);
    job->set_held_by_admin(false);
    job->set_reason("None");
    if (auto* r = jobs_.MutableRequest(job->job_id())) r->priority = 1;
    MarkJob(job->job_id());
    WantSchedule();
  }
  return Status::Ok();
}

Status Controller::Requeue(const Caller& c, JobInfo* job, bool hold) {
  job = HetFirst(job);
  if (job->spec().requeue() == 2 || job->spec().interactive()) {
    return FailedPrecondition(kMsgDisabled);
  }
  if (job->state() == JOB_PENDING) return FailedPrecondition(kMsgJobPending);
  if (Ending(*job)) {
    return FailedPrecondition(kMsgAlreadyDone);
  }
  job->set_hold_on_requeue(hold);
  if (job->state() == JOB_RUNNING) {
    BeginRequeue(job);
    return Status::Ok();
  }
  RequeueNow(job, "None");
  return Status::Ok();
}

void Controller::EndPending(JobInfo* job, JobState state) {
  jobs_.SetState(job, state);
  job->set_end_time(Now());
  job->set_reason("None");
  MarkJob(job->job_id());
}

void Controller::BeginRequeue(JobInfo* job) {
  job->set_requeue_on_end(true);
  jobs_.SetState(job, JOB_COMPLETING);
  SendSignal(*job, SIGNAL_CANCEL, 0, true);
  MarkJob(job->job_id());
}

GetConfigReply Controller::GetConfig() const {
  std::map<std::string, std::string> kv = {
      {"ClusterName", config_.cluster_name},
      {"SlurmctldHost", config_.ctld_host},
      {"SlurmctldPort", std::to_string(config_.ctld_port)},
      {"SlurmdPort", std::to_string(config_.slurmd_port)},
      {"StateSaveLocation", config_.state_save_location},
      {"SlurmdSpoolDir", config_.slurmd_spool_dir},
      {"KillWait", fmt::format("{} sec", config_.kill_wait_s)},
      {"SlurmdTimeout", fmt::format("{} sec", config_.slurmd_timeout_s)},
      {"JobRequeue", config_.job_requeue ? "1" : "0"},
      {"DefMemPerCPU", config_.def_mem_per_cpu_mb ? std::to_string(config_.def_mem_per_cpu_mb)
                                                  : std::string("UNLIMITED")},
      {"MinJobAge", fmt::format("{} sec", options_.min_job_age_s)},
      {"MaxArraySize", std::to_string(config_.max_array_size)},
      {"MaxTasksPerNode", std::to_string(kMaxStepTasksPerNode)},
      {"PropagateResourceLimits", "ALL"},  // what sbatch/srun do without --propagate
      {"SLURM_CONF", config_.path},
      {"SchedulerType", "sched/builtin"},
      {"SelectType", "select/cons_tres"},
      {"PreemptType", PreemptTypeName(config_.preempt_type)},
      {"PreemptMode", PreemptModeName(config_.preempt_mode)},
      {"PreemptExemptTime",
       fmt::format("{:02}:{:02}:{:02}", std::max<int64_t>(0, config_.preempt_exempt_time_s) / 3600,
                   std::max<int64_t>(0, config_.preempt_exempt_time_s) / 60 % 60,
                   std::max<int64_t>(0, config_.preempt_exempt_time_s) % 60)},
  };
  std::string gres;
  for (const auto& g : config_.gres_types) gres += (gres.empty() ? "" : ",") + g;
  kv["GresTypes"] = gres.empty() ? "(null)" : gres;
  std::set<std::string> known;
  for (const auto& [k, v] : kv) known.insert(Upper(k));
  for (const auto& [k, v] : config_.raw) {
    if (!known.count(Upper(k))) kv.emplace(k, v);  // computed values win
  }
  GetConfigReply reply;
  for (const auto& [k, v] : kv) {
    reply.add_keys(k);
    reply.add_values(v);
  }
  return reply;
}

}  // namespace sluice::ctld
