// The web dashboard's state (GET /dashboard/state, services/ctld_http.h): the tables as
// they are now through DashboardView (components/dashboard_view.h), with the first
// pending jobs in scheduling order explained as `sluice why` explains them, and the
// events and GPU-hours the controller keeps for it.

#include "ctld/components/dashboard_view.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {
namespace {

// The queue shows this many pending jobs (the totals count all of them).
constexpr size_t kQueueShown = 100;

}  // namespace

void Controller::RecordEvent(EventKind kind, const JobInfo* job, std::string node,
                             std::string text) {
  ClusterEvent e;
  e.time = Now();
  e.kind = kind;
  if (job) {
    e.job_id = job->job_id();
    e.uid = job->uid();
  }
  e.node = std::move(node);
  e.text = std::move(text);
  events_.Add(std::move(e));
}

std::string Controller::Dashboard(const Caller& caller) const {
  DashboardInputs in;
  in.cluster = config_.cluster_name;
  in.now = Now();
  in.uid = caller.uid;
  in.user = options_.user_name(caller.uid);
  in.admin = access_.IsAdmin(caller);
  in.own_jobs_only = access_.HidesOthersJobs(caller);
  in.nodes = &nodes_;
  in.jobs = &jobs_;
  in.events = &events_;
  in.gpu_hours = gpu_hours_.HoursByAccount();

  // The queue: the pending jobs in the last pass's order, then those it did not consider
  // (held, waiting for a dependency or --begin, submitted since), oldest first. No walk
  // over the whole queue: the pass order is a list, and the rest stops when found.
  auto pending = [&](int64_t id) -> const JobInfo* {
    const JobInfo* j = jobs_.Find(id);
    return j && j->state() == JOB_PENDING ? j : nullptr;
  };
  GetJobsReply queue;
  for (const PassOrder::Job& p : pass_order_.order()) {
    if (static_cast<size_t>(queue.jobs_size()) >= kQueueShown) break;
    if (in.own_jobs_only && p.uid != caller.uid) continue;
    if (const JobInfo* j = pending(p.id)) *queue.add_jobs() = *j;
  }
  // Every pending job, or the viewer's: from the indexes.
  if (in.own_jobs_only) {
    for (int64_t id : jobs_.OfUid(caller.uid)) in.pending += pending(id) != nullptr;
  } else {
    in.pending = static_cast<int64_t>(jobs_.PendingCount());
  }
  int64_t rest = in.pending - queue.jobs_size();  // pending jobs not shown yet
  auto add_rest = [&](int64_t id) {
    if (rest <= 0 || static_cast<size_t>(queue.jobs_size()) >= kQueueShown) return false;
    if (const JobInfo* j = pending(id); j && !pass_order_.Considered(id)) {
      *queue.add_jobs() = *j;
      --rest;
    }
    return true;
  };
  if (in.own_jobs_only) {
    for (int64_t id : jobs_.OfUid(caller.uid))
      if (!add_rest(id)) break;
  } else {
    for (const auto& [id, job] : jobs_.jobs())
      if (!add_rest(id)) break;
  }
  Explain(&queue, &caller);
  in.queue.assign(queue.jobs().begin(), queue.jobs().end());
  return DashboardView(in).dump();
}

}  // namespace sluice::ctld
