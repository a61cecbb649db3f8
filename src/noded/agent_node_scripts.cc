// Prolog / Epilog on the nodes of a job other than its batch host (the batch host's
// stepd runs them around the batch script, node_common/node_scripts.h). As Slurm does without
// PrologFlags=Alloc, such a node runs the Prolog once per job run, before the first
// step that reaches it; a failure fails that step launch and is reported to the
// controller (JobReport.prolog_failed from a non-batch node: drain it, requeue the job)
// before the launch is answered. The Epilog runs when the controller ends the job's
// share on the node (SIGNAL_KILL_STALE at the job's end or loss), on nodes that ran a
// prolog for it and, as Slurm does, on allocated nodes where no step ever ran (the
// controller sends the ended job along); a failure is reported as
// JobReport.epilog_failed (drain the node).
#include <fmt/format.h>

#include <cstdio>

#include "node_common/node_scripts.h"
#include "noded/agent.h"

namespace sluice {

BatchLaunch Agent::NodeScriptLaunch(const StepLaunch& step) const {
  BatchLaunch b;
  b.set_job_id(step.job_id());
  *b.mutable_job() = step.job();
  *b.mutable_local() = step.local();
  b.mutable_local()->set_node(options_.node_name);
  b.set_cluster_name(options_.cluster_name);
  b.set_conf_path(options_.conf_path);
  b.set_prolog(options_.prolog);
  b.set_epilog(options_.epilog);
  b.set_prolog_epilog_timeout_s(options_.prolog_epilog_timeout_s);
  return b;
}

void Agent::ReportNodeScript(int64_t job_id, bool prolog_failed, bool epilog_failed) {
  JobEndedRequest req;
  req.set_node(options_.node_name);
  JobReport* r = req.mutable_report();
  r->set_job_id(job_id);
  r->set_finished(true);
  r->set_state(JOB_FAILED);
  r->set_prolog_failed(prolog_failed);
  r->set_epilog_failed(epilog_failed);
  Status st = controller_->JobEnded(req);
  if (!st.ok()) {
    log_->warn("node script failure report failed job_id={} error={:?}", job_id, st.message());
  }
}

Status Agent::StepProlog(const StepLaunch& step) {
  const JobInfo& job = step.job();
  bool batch_host = job.alloc_size() > 0 && job.alloc(0).node() == options_.node_name;
  if (batch_host || (options_.prolog.empty() && options_.epilog.empty())) return Status::Ok();
  std::lock_guard<std::mutex> lock(scripts_mu_);
  auto it = node_scripts_.find(step.job_id());
  if (it != node_scripts_.end() && it->second.launch.job().restarts() == job.restarts()) {
    return it->second.prolog_ok ? Status::Ok() : FailedPrecondition("Prolog error");
  }
  NodeScriptRun run{NodeScriptLaunch(step), true};
  HookResult r = RunProlog(run.launch);
  run.prolog_ok = r.ok();
  node_scripts_[step.job_id()] = run;
  if (run.prolog_ok) return Status::Ok();
  ReportNodeScript(step.job_id(), true, false);
  return FailedPrecondition("Prolog error: " + r.Reason("Prolog"));
}

void Agent::JobEpilog(int64_t job_id, const JobInfo* job) {
  NodeScriptRun run;
  {
    std::lock_guard<std::mutex> lock(scripts_mu_);
    auto it = node_scripts_.find(job_id);
    if (it != node_scripts_.end()) {
      run = it->second;
      node_scripts_.erase(it);
    } else {
      if (job == nullptr || options_.epilog.empty() || job->alloc_size() == 0 ||
          job->alloc(0).node() == options_.node_name) {
        return;
      }
      auto key = std::make_pair(job_id, job->restarts());
      if (!stepless_epilogs_.Insert(key)) return;
      StepLaunch step;
      step.set_job_id(job_id);
      *step.mutable_job() = *job;
      for (const NodeAlloc& a : job->alloc()) {
        if (a.node() == options_.node_name) *step.mutable_local() = a;
      }
      run.launch = NodeScriptLaunch(step);
    }
  }
  if (!run.prolog_ok) return;  // the job never ran here
  if (!RunEpilog(run.launch, 0).ok()) ReportNodeScript(job_id, false, true);
}

}  // namespace sluice
