// The web dashboard's state (GET /dashboard/state, services/ctld_http.h): the tables as
// they are now through DashboardView (components/dashboard_view.h), with the first
// pending jobs in scheduling order explained as `sluice why` explains them, and the
// events and GPU-hours the controller keeps for it.
#include <algorithm>

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
  in.admin = IsAdmin(caller);
  in.own_jobs_only = HidesOthersJobs(caller);
  in.nodes = &nodes_;
  in.jobs = &jobs_;
  in.events = &events_;
  in.gpu_hours = gpu_hours_.HoursByAccount();

  struct Entry {
    int64_t priority;
    int64_t id;
  };
  std::vector<Entry> pending;
  for (const auto& [id, job] : jobs_.jobs()) {
    if (job.state() != JOB_PENDING) continue;
    if (in.own_jobs_only && job.uid() != caller.uid) continue;
    pending.push_back({job.priority(), id});
  }
  in.pending = static_cast<int64_t>(pending.size());
  const size_t shown = std::min(pending.size(), kQueueShown);
  std::partial_sort(pending.begin(), pending.begin() + shown, pending.end(),
                    [](const Entry& a, const Entry& b) {
                      return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
                    });
  GetJobsReply queue;
  for (size_t i = 0; i < shown; ++i) *queue.add_jobs() = *jobs_.Find(pending[i].id);
  Explain(&queue, &caller);
  in.queue.assign(queue.jobs().begin(), queue.jobs().end());
  return DashboardView(in).dump();
}

}  // namespace sluice::ctld
