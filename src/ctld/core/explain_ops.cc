// Why pending jobs are not running (GetJobsRequest.explain: `sluice why`, scontrol show
// job's Explanation=): sched::Explain over the cluster as it is now (PassSnapshot: the
// same snapshot and limits a pass gets), the reason and planned nodes the last pass gave
// the job, the jobs the last pass considered before it in its partition (pass_order_),
// and the dependency terms still in its way (DependencyWords, array_dep_ops.cc).
#include <algorithm>
#include <optional>

#include "common/hostlist.h"
#include "common/slurm_format.h"
#include "ctld/components/limits_input.h"
#include "ctld/components/validate.h"
#include "ctld/core/controller.h"
#include "sched/explain.h"

namespace sluice::ctld {
namespace {

// At most this many jobs of one reply are explained (each costs a walk over its
// partition's nodes); the rest are sent without.
constexpr int kMaxExplained = 1000;

}  // namespace

sched::ClusterSnapshot Controller::PassSnapshot(
    const std::vector<sched::JobRequest>& pending) const {
  sched::ClusterSnapshot snap = nodes_.Snapshot(false);
  for (int64_t id : jobs_.NotPending()) {  // not a walk over the pending queue
    const JobInfo& job = *jobs_.Find(id);
    if (!HoldsResources(job)) continue;
    sched::RunningJob r{id, 0, job.spec().exclusive(), {}};
    if (job.time_limit_min() > 0) r.end_time = job.start_time() + job.time_limit_min() * 60;
    if (knobs_.bf_predict == sched::SchedulerConfig::Prediction::kUser2 && r.end_time > 0) {
      r.planned_end = sched::PredictedEnd(job.start_time(), PredictedRuntime(job),
                                          job.time_limit_min() * 60, Now());
    }
    for (const auto& a : job.alloc()) {
      r.alloc.push_back({a.node(),
                         {a.cpu_ids().begin(), a.cpu_ids().end()},
                         a.mem_mb(),
                         {a.gpu_ids().begin(), a.gpu_ids().end()},
                         a.ntasks()});
    }
    snap.running.push_back(std::move(r));
  }
  resvs_.AddTo(&snap);
  if (enforce_.limits) AddLimitsInput(jobs_, assoc_db_, fair_share_, pending, Now(), &snap);
  return snap;
}

int64_t Controller::PredictedRuntime(const JobInfo& job) const {
  return runtimes_.Predict(job.user(), std::max<int64_t>(0, job.time_limit_min() * 60));
}

void Controller::Explain(GetJobsReply* reply, const Caller* viewer) const {
  std::vector<JobInfo*> wanted;
  std::vector<sched::JobRequest> requests;
  for (JobInfo& out : *reply->mutable_jobs()) {  // (the reply may carry only some fields)
    const JobInfo* job = jobs_.Find(out.job_id());
    const sched::JobRequest* req = jobs_.Request(out.job_id());
    if (!job || job->state() != JOB_PENDING || !req) continue;
    if (static_cast<int>(wanted.size()) >= kMaxExplained) break;
    wanted.push_back(&out);
    requests.push_back(*req);
  }
  if (wanted.empty()) return;
  const sched::ClusterSnapshot snap = PassSnapshot(requests);
  std::function<bool(int64_t)> names_job;
  if (viewer && access_.HidesOthersJobs(*viewer)) {
    names_job = [this, uid = viewer->uid](int64_t id) {
      const JobInfo* j = jobs_.Find(id);
      return j && j->uid() == uid;
    };
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    const JobInfo& job = *jobs_.Find(wanted[i]->job_id());
    sched::ExplainInput in;
    in.job = requests[i];
    in.partition = job.spec().partition();
    in.reason = PendingReason(job);
    in.planned_start = job.planned_start();
    if (!job.sched_nodes().empty()) {
      if (auto nodes = ExpandHostlist(job.sched_nodes()); nodes.ok()) in.planned_nodes = *nodes;
    }
    in.begin_time = job.spec().begin_time();
    if (std::optional<PassOrder::Ahead> ahead = pass_order_.Before(job.job_id())) {
      in.ahead_count = ahead->count;
      for (const PassOrder::Job& a : ahead->first) in.ahead.push_back({a.id, a.priority});
      if (knobs_.queue_order != sched::BackfillOrder::kPriority)
        in.queue_order = sched::BackfillOrderName(knobs_.queue_order);
    }
    in.dependencies = DependencyWords(job);
    in.names_job = names_job;
    wanted[i]->set_explanation(sched::Explain(snap, in, Now(), FormatTimestamp));
  }
}

}  // namespace sluice::ctld
