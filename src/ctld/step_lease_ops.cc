// Step bookkeeping and client leases of the Controller: srun/salloc call Keepalive every
// second; a step whose srun went silent for client_lease_ms loses its resources (its
// tasks are already dead: the stepd kills them when srun's I/O connection closes), and
// an interactive allocation (salloc, standalone srun) whose client went silent is
// cancelled. Steps live in memory only: after a controller restart each node agent's
// registration reports the steps running there (RestoreSteps), which hold their CPUs,
// GPUs and memory again until srun ends them or its lease runs out.
#include <fmt/format.h>

#include <algorithm>

#include "ctld/controller.h"

namespace sluice::ctld {

std::vector<ActiveStep> Controller::RunningSteps(int64_t job_id) const {
  std::vector<ActiveStep> out;
  auto it = steps_.find(job_id);
  if (it == steps_.end()) return out;
  for (const auto& [id, s] : it->second) out.push_back(s);
  return out;
}

const std::map<int, ActiveStep>* Controller::StepsOf(int64_t job_id) const {
  auto it = steps_.find(job_id);
  return it == steps_.end() ? nullptr : &it->second;
}

Status Controller::Keepalive(const Caller& caller, const KeepaliveRequest& req) {
  JobInfo* job = jobs_.Find(req.job_id());
  RETURN_IF_ERROR(CheckOwner(caller, job));
  int64_t now = clock_->NowMs();
  if (job->spec().interactive()) alloc_seen_ms_[job->job_id()] = now;
  auto it = steps_.find(job->job_id());
  if (it == steps_.end()) return Status::Ok();
  for (int id : req.step_ids()) {
    auto s = it->second.find(id);
    if (s != it->second.end()) s->second.last_seen_ms = now;
  }
  bool freed = false;
  for (int id : req.ended_step_ids()) {
    AcctStepEnded(job->job_id(), id, req);
    freed |= it->second.erase(id) > 0;
  }
  if (it->second.empty()) steps_.erase(it);
  (void)freed;
  return Status::Ok();
}

void Controller::RestoreSteps(const NodeRuntime& n, const RegisterNodeRequest& req) {
  for (const RunningStep& r : req.running_steps()) {
    const JobInfo* job = jobs_.Find(r.job_id());
    if (!job || job->state() != JOB_RUNNING || job->completing() || !n.jobs.count(r.job_id()))
      continue;
    auto [it, fresh] = steps_[r.job_id()].try_emplace(r.step_id());
    ActiveStep& s = it->second;
    if (fresh) {
      s.step_id = r.step_id();
      s.name = r.name();
      s.start_time = r.start_time();
      s.last_seen_ms = clock_->NowMs();  // srun's keepalives take over from here
      s.overlap = r.overlap();
      s.ntasks = r.ntasks();
    }
    bool known = std::any_of(s.use.begin(), s.use.end(),
                             [&](const StepNodeUse& u) { return u.node == n.cfg.name; });
    if (known) continue;
    s.use.push_back(StepNodeUse{n.cfg.name,
                                {r.cpu_ids().begin(), r.cpu_ids().end()},
                                {r.gpu_ids().begin(), r.gpu_ids().end()},
                                r.mem_mb()});
  }
}

void Controller::ExpireClientLeases() {
  int64_t now = clock_->NowMs();
  int64_t lease = options_.client_lease_ms;
  for (auto it = steps_.begin(); it != steps_.end();) {
    const JobInfo* job = jobs_.Find(it->first);
    bool running = job && job->state() == JOB_RUNNING && !job->completing();
    if (running) {
      std::erase_if(it->second,
                    [&](const auto& kv) { return now - kv.second.last_seen_ms > lease; });
    }
    if (!running || it->second.empty()) {
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
  // Interactive allocations: armed when first seen (the client keeps alive from submit).
  std::vector<int64_t> expired;
  for (const auto& [id, job] : jobs_.jobs()) {
    if (!job.spec().interactive()) continue;
    bool live = job.state() == JOB_PENDING || (job.state() == JOB_RUNNING && !job.completing());
    if (!live) {
      alloc_seen_ms_.erase(id);
      continue;
    }
    auto [seen, inserted] = alloc_seen_ms_.emplace(id, now);
    if (!inserted && now - seen->second > lease) expired.push_back(id);
  }
  for (int64_t id : expired) {
    JobInfo* job = jobs_.Find(id);
    alloc_seen_ms_.erase(id);
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

GetStepsReply Controller::GetSteps(const GetStepsRequest& req) const {
  GetStepsReply reply;
  for (const auto& [job_id, steps] : steps_) {
    if (req.job_ids_size() > 0 &&
        std::find(req.job_ids().begin(), req.job_ids().end(), job_id) == req.job_ids().end()) {
      continue;
    }
    const JobInfo* job = jobs_.Find(job_id);
    if (!job) continue;
    for (const auto& [id, s] : steps) {
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
  if (HidesOthersJobs(caller)) RETURN_IF_ERROR(CheckOwner(caller, job));
  if (job->state() != JOB_RUNNING)
    return FailedPrecondition(fmt::format("job {} is not running", job_id));
  const std::map<int, ActiveStep>* steps = StepsOf(job_id);
  auto it = steps ? steps->find(step_id) : std::map<int, ActiveStep>::const_iterator();
  if (steps == nullptr || it == steps->end()) {
    return NotFound(fmt::format("no running step {}.{}", job_id, step_id));
  }
  StepUsageTargets t;
  for (const StepNodeUse& u : it->second.use) t.agents.push_back(AddressOf(u.node));
  t.ntasks = it->second.ntasks;
  t.link = agents_;
  return t;
}

}  // namespace sluice::ctld
