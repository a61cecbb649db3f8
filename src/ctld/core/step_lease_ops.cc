// Step bookkeeping and client leases of the Controller: srun/salloc call Keepalive every
// second; a step whose srun went silent for client_lease_ms loses its resources (its
// tasks are already dead: the stepd kills them when srun's I/O connection closes), and
// an interactive allocation (salloc, standalone srun) whose client went silent is
// cancelled. Steps live in memory only: after a controller restart each node agent's
// registration reports the steps running there (RestoreSteps), which hold their CPUs,
// GPUs and memory again until srun ends them or its lease runs out.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ctld/core/controller.h"

namespace sluice::ctld {

Status Controller::Keepalive(const Caller& caller, const KeepaliveRequest& req) {
  JobInfo* job = jobs_.Find(req.job_id());
  RETURN_IF_ERROR(CheckOwner(caller, job));
  int64_t now = clock_->NowMs();
  if (job->spec().interactive()) steps_.SeeAllocation(job->job_id(), now);
  steps_.Touch(job->job_id(), {req.step_ids().begin(), req.step_ids().end()}, now);
  for (int id : req.ended_step_ids()) {
    acct_.StepEnded(job->job_id(), id, req);
    steps_.End(job->job_id(), id);
  }
  return Status::Ok();
}

void Controller::RestoreSteps(const NodeRuntime& n, const RegisterNodeRequest& req) {
  for (const RunningStep& r : req.running_steps()) {
    const JobInfo* job = jobs_.Find(r.job_id());
    if (!job || job->state() != JOB_RUNNING || job->completing() || !n.jobs.count(r.job_id()))
      continue;
    steps_.Restore(r, n.cfg.name, clock_->NowMs());
  }
}

void Controller::ExpireClientLeases() {
  int64_t now = clock_->NowMs();
  int64_t lease = options_.client_lease_ms;
  steps_.Expire(now, lease, [&](int64_t job_id) {
    const JobInfo* job = jobs_.Find(job_id);
    return job && job->state() == JOB_RUNNING && !job->completing();
  });
  // Interactive allocations: armed when first seen (the client keeps alive from submit).
  std::vector<int64_t> expired;
  for (int64_t id : jobs_.Interactive()) {
    const JobInfo& job = *jobs_.Find(id);
    bool live = job.state() == JOB_PENDING || (job.state() == JOB_RUNNING && !job.completing());
    if (!live) {
      steps_.ForgetAllocation(id);
      continue;
    }
    if (steps_.AllocationSilent(id, now, lease)) expired.push_back(id);
  }
  for (int64_t id : expired) {
    JobInfo* job = jobs_.Find(id);
    steps_.ForgetAllocation(id);
    log_->warn("srun/salloc silent, releasing the allocation job_id={} silent_ms={}", id, lease);
    if (job->state() == JOB_PENDING) {
      FinishJob(job, JOB_CANCELLED, 0, 0);
    } else {
      SendSignal(*job, SIGNAL_CANCEL, 0, true);
      FinishJob(job, JOB_CANCELLED, 0, 0);
    }
    MarkJob(id);
    WantSchedule();
  }
}

namespace {

bool Has(const auto& list, const auto& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

}  // namespace

GetStepsReply Controller::GetSteps(const GetStepsRequest& req) const {
  GetStepsReply reply;
  // The jobs to look at: those named (by -j, else by -s), else every job with steps.
  std::set<int64_t> named(req.job_ids().begin(), req.job_ids().end());
  if (named.empty())
    for (const StepRef& r : req.steps()) named.insert(r.job_id());
  std::vector<const std::pair<const int64_t, StepTable::Steps>*> candidates;
  if (named.empty()) {
    for (const auto& entry : steps_.all()) candidates.push_back(&entry);
  } else {
    for (int64_t id : named)
      if (auto it = steps_.all().find(id); it != steps_.all().end()) candidates.push_back(&*it);
  }
  for (const auto* entry : candidates) {
    const auto& [job_id, steps] = *entry;
    const JobInfo* job = jobs_.Find(job_id);
    if (!job || !Has(req.job_ids(), job_id) || !Has(req.uids(), job->uid()) ||
        !Has(req.partitions(), job->spec().partition())) {
      continue;
    }
    for (const auto& [id, s] : steps) {
      auto wanted = [job = job_id, step = id](const StepRef& r) {
        return r.job_id() == job && (r.step_id() < 0 || r.step_id() == step);
      };
      if (req.steps_size() > 0 && std::none_of(req.steps().begin(), req.steps().end(), wanted))
        continue;
      StepInfo* info = reply.add_steps();
      info->set_job_id(job_id);
      info->set_step_id(id);
      info->set_name(s.name);
      info->set_uid(job->uid());
      info->set_user(job->user());
      info->set_partition(job->spec().partition());
      info->set_start_time(s.start_time);
      int ncpus = 0, ngpus = 0;
      for (const StepNodeUse& u : s.use) {
        info->add_nodes(u.node);
        ncpus += static_cast<int>(u.cpu_ids.size());
        ngpus += static_cast<int>(u.gpu_ids.size());
      }
      info->set_ntasks(s.ntasks);
      info->set_ncpus(ncpus);
      info->set_ngpus(ngpus);
      info->set_time_limit_min(job->time_limit_min());
      info->set_state("RUNNING");
    }
  }
  return reply;
}

Expected<Controller::StepUsageTargets> Controller::UsageTargets(const Caller& caller,
                                                                int64_t job_id,
                                                                int32_t step_id) const {
  const JobInfo* job = jobs_.Find(job_id);
  if (job == nullptr) return NotFound(kMsgInvalidJobId);
  if (access_.HidesOthersJobs(caller)) RETURN_IF_ERROR(CheckOwner(caller, job));
  if (job->state() != JOB_RUNNING)
    return FailedPrecondition(fmt::format("job {} is not running", job_id));
  const ActiveStep* step = steps_.Find(job_id, step_id);
  if (step == nullptr) {
    return NotFound(fmt::format("no running step {}.{}", job_id, step_id));
  }
  StepUsageTargets t;
  for (const StepNodeUse& u : step->use) t.agents.push_back(AddressOf(u.node));
  t.ntasks = step->ntasks;
  t.link = agents_;
  return t;
}

}  // namespace sluice::ctld
