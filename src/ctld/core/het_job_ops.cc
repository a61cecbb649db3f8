// Heterogeneous jobs (sbatch with `#SBATCH hetjob` separators): one submission of several
// components, each a job of its own with consecutive ids; the scheduler starts them
// together (sched/backfill_scheduler.cc), the first component's batch script runs once
// all have their nodes (scheduler_loop.cc), and SyncHetGroups keeps them in step.
#include <fmt/format.h>

#include "ctld/components/validate.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {
namespace {

constexpr int kMaxHetComponents = 128;

}  // namespace

Expected<SubmitReply> Controller::SubmitHet(const Caller& caller, const SubmitRequest& req) {
  const int n = 1 + req.het_components_size();
  if (n > kMaxHetComponents) {
    return InvalidArgument(
        fmt::format("Too many heterogeneous job components (at most {})", kMaxHetComponents));
  }
  if (req.spec().interactive())
    return InvalidArgument("Heterogeneous allocations are not supported");
  // Every component is checked before any is inserted: all are accepted or none.
  std::vector<JobInfo> jobs;
  std::vector<sched::JobRequest> requests;
  const int64_t first = next_job_id_;
  for (int k = 0; k < n; ++k) {
    const JobSpec& spec = k == 0 ? req.spec() : req.het_components(k - 1);
    if (!spec.array_spec().empty())
      return InvalidArgument("Job arrays of heterogeneous jobs are not supported");
    ASSIGN_OR_RETURN(JobInfo job, NewJob(caller, spec));
    job.set_job_id(first + k);
    job.set_het_job_id(first);
    job.set_het_job_offset(k);
    job.set_het_size(n);
    ASSIGN_OR_RETURN(std::vector<int64_t> tasks, ParseArrayAndDeps(&job));
    RETURN_IF_ERROR(CheckAssocSubmit(&job, 1));
    ASSIGN_OR_RETURN(sched::JobRequest request, BuildRequest(config_, job));
    sched::Decision feas = sched_.check_feasible(nodes_.Snapshot(true), request);
    if (feas.outcome == sched::Outcome::kNever) {
      return InvalidArgument(feas.reason.empty() ? kMsgNodeConfig : feas.reason);
    }
    if (k > 0) job.mutable_spec()->clear_script();  // the first component's runs for all
    jobs.push_back(std::move(job));
    requests.push_back(std::move(request));
  }
  SubmitReply reply;
  reply.set_job_id(first);
  if (req.test_only()) {
    reply.set_test_only_message(TestOnlyMessage(jobs[0]));
    return reply;
  }
  const int64_t now = Now();
  const bool held = req.spec().hold();
  for (int k = 0; k < n; ++k) {
    JobInfo& job = jobs[k];
    job.set_state(JOB_PENDING);
    job.set_submit_time(now);
    job.set_eligible_time(std::max(now, jobs[0].spec().begin_time()));
    job.set_priority(held ? 0 : 1);
    job.set_reason(held ? "JobHeldUser" : jobs[0].spec().begin_time() > now ? "BeginTime" : "None");
    requests[k].priority = job.priority();
    requests[k].submit_time = now;
    InsertSubmitted(std::move(job), std::move(requests[k]), {});
  }
  stats_.jobs.submitted += n;
  if (!held) WantSchedule();
  return reply;
}

JobInfo* Controller::HetFirst(JobInfo* job) {
  if (job->het_job_offset() == 0) return job;
  JobInfo* first = jobs_.Find(job->het_job_id());
  return first ? first : job;
}

void Controller::SyncHetGroups() {
  std::set<int64_t> groups;
  for (int64_t id : dirty_jobs_) {
    const JobInfo* j = jobs_.Find(id);
    if (j && j->het_job_id() != 0) groups.insert(j->het_job_id());
  }
  for (int64_t g : groups) SyncHetGroup(g);
}

// The first component decides: when it ends (or is being ended), its components end with
// its state; when it was requeued, they are requeued. A component that ended or was
// requeued on its own (its node was lost, it was preempted) takes the first with it.
void Controller::SyncHetGroup(int64_t het_job_id) {
  JobInfo* first = jobs_.Find(het_job_id);
  if (!first) return;
  std::vector<JobInfo*> rest;
  for (int k = 1; k < first->het_size(); ++k) {
    JobInfo* c = jobs_.Find(het_job_id + k);
    if (c && c->het_job_id() == het_job_id) rest.push_back(c);
  }
  const bool first_active = first->state() == JOB_RUNNING && !Ending(*first);
  if (first_active) {
    for (JobInfo* c : rest) {
      if (c->state() == JOB_PENDING) {  // requeued on its own: so is the whole job
        BeginRequeue(first);
        break;
      }
      if (IsTerminal(c->state())) {
        StartCancel(first, c->state());
        break;
      }
    }
  } else if (first->state() == JOB_PENDING) {
    for (JobInfo* c : rest) {
      if (IsTerminal(c->state()) && !IsTerminal(first->state()))
        EndPending(first, c->state());  // cancelled while pending
    }
  }
  const bool requeueing =
      first->state() == JOB_PENDING || (Ending(*first) && first->requeue_on_end());
  const bool ended = !requeueing && (IsTerminal(first->state()) || Ending(*first));
  for (JobInfo* c : rest) {
    if (c->state() == JOB_RUNNING && !c->completing() && (requeueing || ended)) {
      for (const auto& a : c->alloc()) SendJobEndTo(a.node(), *c);  // its steps end there
      if (requeueing) {
        RequeueNow(c, "None");
      } else {
        FinishJob(c, first->state(), first->exit_code(), first->term_signal());
      }
    } else if (c->state() == JOB_PENDING && IsTerminal(first->state())) {
      EndPending(c, first->state());
    }
  }
}

}  // namespace sluice::ctld
