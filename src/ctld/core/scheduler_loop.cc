// Scheduling passes of the Controller: usage is accrued and priorities recomputed
// (components/fair_share.h); pending jobs (by partition PriorityTier, priority, then job id;
// held jobs and jobs of DOWN partitions left out) + a snapshot go to the injected
// Scheduler; starts
// are applied (state RUNNING, allocation, output paths), committed, and only then
// launched on the batch host (the allocation's first node).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

#include "common/hostlist.h"
#include "ctld/components/launch_builder.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "sched/pending_order.h"

namespace sluice::ctld {

bool Controller::ScheduleDue(int64_t now_ms) const {
  int64_t since = now_ms - last_sched_ms_;
  int64_t debounce = sched_urgent_ ? 0 : options_.sched_min_interval_ms;
  return (sched_wanted_ && since >= debounce) || since >= options_.sched_period_ms;
}

int64_t Controller::NextWakeMs(int64_t now_ms) const {
  int64_t next = last_sched_ms_ + options_.sched_period_ms;
  int64_t debounce = sched_urgent_ ? 0 : options_.sched_min_interval_ms;
  if (sched_wanted_) next = std::min(next, last_sched_ms_ + debounce);
  return std::max(next, now_ms);
}

namespace {

// Jobs the plan starts while one ahead of them in `pending` (priority order) waits.
int64_t CountBackfilled(const std::vector<sched::JobRequest>& pending, const sched::Plan& plan) {
  std::set<int64_t> started;
  for (const auto& d : plan.decisions)
    if (d.outcome == sched::Outcome::kStartNow) started.insert(d.job_id);
  int64_t n = 0;
  bool blocked = false;
  for (const auto& r : pending) {
    if (!started.count(r.job_id))
      blocked = true;
    else if (blocked)
      ++n;
  }
  return n;
}

// "gpu[1-2]": the nodes the plan reserved for a pending job ("" = none).
std::string PlannedNodes(const sched::Decision& d) {
  if (d.planned_alloc.empty()) return "";
  std::vector<std::string> nodes;
  for (const auto& n : d.planned_alloc) nodes.push_back(n.node);
  return CompressHostlistSorted(std::move(nodes));
}

}  // namespace

// A pass costs O(pending jobs) on the owner thread (about 150 ms with 50,000 pending on
// this machine): change-triggered passes back to back would starve the RPCs queued
// behind it. So the next pass is due sched_min_interval_ms after the end of this one
// PLUS its own duration: passes take at most about half of the owner thread. (With a
// ManualClock a pass takes no time and nothing changes.)
bool Controller::SchedulePass() {
  struct PushNextPass {  // on every return: next pass no sooner than end + duration
    Controller* c;
    int64_t start;
    ~PushNextPass() {
      int64_t end = c->clock_->NowMs();
      c->last_sched_ms_ = end + std::max<int64_t>(0, end - start);
    }
  } push_next{this, clock_->NowMs()};
  const int64_t pass_start_us = RealClock::MonotonicUs();  // sdiag's cycle time
  sched_wanted_ = false;
  sched_urgent_ = false;
  if (!sched_.scheduler) return false;
  AccrueUsage();
  fair_share_.Prioritize(&jobs_, Now());
  resvs_.Roll(Now());
  std::vector<sched::JobRequest> pending;
  std::vector<int> tiers;                  // each one's partition's PriorityTier
  std::vector<PassOrder::Job> considered;  // and the job, for pass_order_
  sched::ArrayThrottle throttle;
  for (auto& [id, job] : jobs_.jobs()) {
    if (job.state() != JOB_PENDING || job.priority() == 0) continue;
    const sched::JobRequest* req = jobs_.Request(id);
    if (!req) continue;
    const PartitionConfig* part = LookupPartition(config_, job.spec().partition());
    if (part && !part->up) {
      if (job.reason() != "PartitionDown") {
        job.set_reason("PartitionDown");
        MarkJob(id);
      }
      continue;
    }
    if (job.spec().begin_time() > Now()) {  // sbatch --begin: eligible at the first pass after it
      SetReason(&job, "BeginTime");
      job.set_planned_start(job.spec().begin_time());
      continue;
    }
    if (!DependencyGate(&job) || !ThrottleGate(&job, &throttle)) continue;
    pending.push_back(*req);
    if (knobs_.bf_predict == sched::SchedulerConfig::Prediction::kUser2)
      pending.back().predicted_runtime_s = PredictedRuntime(job);
    tiers.push_back(part ? part->priority_tier : 0);
    considered.push_back({id, pending.back().priority, job.uid(), &job.spec().partition()});
  }
  OrderPending(&pending, tiers, considered);
  if (pending.empty()) return false;
  sched::ClusterSnapshot snap = PassSnapshot(pending);
  preemption_.FillInputs(jobs_, &snap, &pending);
  sched::Plan plan = sched_.scheduler->Schedule(snap, pending, Now());
  ApplyPreemptions(plan);
  const int64_t pass_us = RealClock::MonotonicUs() - pass_start_us;
  const int64_t backfilled = CountBackfilled(pending, plan);
  stats_.passes.Record(pass_us, static_cast<int64_t>(pending.size()), backfilled);
  stats_.process.pass_seconds.Observe(pass_us / 1e6);
  stats_.process.pass_jobs_considered += static_cast<int64_t>(pending.size());
  stats_.process.pass_backfilled += backfilled;
  for (const auto& d : plan.decisions) {
    JobInfo* job = jobs_.Find(d.job_id);
    if (!job || job->state() != JOB_PENDING) continue;
    if (d.outcome == sched::Outcome::kStartNow) {
      StartJob(job, d);
      if (options_.fault_hook) options_.fault_hook("pass");
      continue;
    }
    job->set_planned_start(d.planned_start);  // advisory: not journaled
    job->set_sched_nodes(PlannedNodes(d));
    job->set_last_sched_eval(Now());
    if (!d.reason.empty() && job->reason() != d.reason) {
      job->set_reason(d.reason);
      MarkJob(d.job_id);
    }
  }
  return true;
}

void Controller::StartJob(JobInfo* job, const sched::Decision& d) {
  jobs_.SetState(job, JOB_RUNNING);
  job->set_start_time(Now());
  job->set_last_sched_eval(Now());
  job->set_reason("None");
  job->clear_sched_nodes();
  job->clear_alloc();
  int cpus = 0;
  // Nodes in hostlist order: the first one is the batch host, as in Slurm.
  std::vector<sched::NodeShare> shares = d.alloc;
  std::sort(shares.begin(), shares.end(),
            [](const auto& x, const auto& y) { return NaturalCompare(x.node, y.node) < 0; });
  for (const auto& s : shares) {
    NodeAlloc* a = job->add_alloc();
    a->set_node(s.node);
    for (int c : s.cpu_ids) a->add_cpu_ids(c);
    a->set_mem_mb(s.mem_mb);
    for (int g : s.gpu_ids) a->add_gpu_ids(g);
    a->set_ntasks(s.ntasks);
    const NodeRuntime* n = nodes_.Find(s.node);
    if (n && !s.gpu_ids.empty() && !n->cfg.gpus.empty()) a->set_gpu_type(n->cfg.gpus[0].type);
    cpus += static_cast<int>(s.cpu_ids.size());
  }
  if (cpus > 0) job->set_num_cpus(cpus);
  job->set_num_nodes(job->alloc_size());
  const std::string first = job->alloc_size() ? job->alloc(0).node() : "";
  const JobSpec& spec = job->spec();
  job->set_stdout_path(ExpandOutputPath(spec.stdout_pattern(), *job, first, spec.work_dir()));
  job->set_stderr_path(spec.stderr_pattern().empty()
                           ? job->stdout_path()
                           : ExpandOutputPath(spec.stderr_pattern(), *job, first, spec.work_dir()));
  nodes_.Allocate(*job, spec.exclusive());
  MarkJob(job->job_id());
  // The batch script runs on the batch host only (alloc[0]); steps (srun) use the
  // other nodes. Interactive allocations (salloc, srun) have no script at all; a
  // heterogeneous job's script starts once all its components have their nodes.
  if (job->het_job_id() != 0) {
    LaunchHetWhenComplete(job->het_job_id());
  } else if (!job->spec().interactive() && job->alloc_size() > 0) {
    LaunchOn(*job, 0);
  }
}

void Controller::LaunchHetWhenComplete(int64_t het_job_id) {
  const JobInfo* first = jobs_.Find(het_job_id);
  if (!first || first->state() != JOB_RUNNING || first->alloc_size() == 0) return;
  for (int k = 1; k < first->het_size(); ++k) {
    const JobInfo* c = jobs_.Find(het_job_id + k);
    if (!c || c->state() != JOB_RUNNING) return;
  }
  LaunchOn(*first, 0);
}

void Controller::LaunchOn(const JobInfo& job, int node_index) {
  Expected<JobScript> script = scripts_.Get(job);
  if (!script.ok()) {  // the store failed: the agent refuses a launch without a script
    log_->error("batch script unreadable job_id={} error={:?}", job.job_id(),
                script.status().message());
  }
  LaunchJobRequest req = BuildLaunch(config_, job, script.ok() ? *script : JobScript(), node_index);
  for (int k = 0; k < job.het_size(); ++k) {  // SLURM_*_HET_GROUP_<k> (stepd/batch_env.cc)
    if (const JobInfo* c = jobs_.Find(job.het_job_id() + k)) {
      *req.mutable_launch()->add_het_components() = *c;
    }
  }
  AgentAddress to = AddressOf(job.alloc(node_index).node());
  if (const NodeRuntime* n = nodes_.Find(to.node)) req.set_session(n->session);
  int64_t id = job.job_id();
  int32_t restarts = job.restarts();
  ++launching_[id];
  SendAfterCommit([this, to, req = std::move(req), id, restarts]() mutable {
    agents_->Launch(to, std::move(req), [this, id, restarts, node = to.node](Status st) {
      OnOwner([this, id, restarts, node, st] { OnLaunchResult(id, restarts, node, st); });
    });
  });
}

void Controller::AccrueUsage() {
  gpu_hours_.Charge(Now(), fair_share_.Accrue(jobs_, Now()));
  SaveUsage(false);
}

void Controller::OrderPending(std::vector<sched::JobRequest>* pending,
                              const std::vector<int>& tiers,
                              const std::vector<PassOrder::Job>& jobs) {
  std::vector<sched::JobRequest> out;
  std::vector<PassOrder::Job> ordered;
  out.reserve(pending->size());
  ordered.reserve(pending->size());
  for (size_t i : sched::PendingOrder(*pending, tiers)) {
    out.push_back(std::move((*pending)[i]));
    ordered.push_back(jobs[i]);
  }
  // The scheduler's own queue order (SchedulerParameters queue_order), so that the pass
  // order recorded for explanations is the one it considers the jobs in.
  std::vector<size_t> considered = sched_.scheduler->ConsideredOrder(out, Now());
  pending->clear();
  std::vector<PassOrder::Job> recorded;
  recorded.reserve(ordered.size());
  for (size_t i : considered) {
    pending->push_back(std::move(out[i]));
    recorded.push_back(ordered[i]);
  }
  pass_order_.Record(recorded);
}

}  // namespace sluice::ctld
