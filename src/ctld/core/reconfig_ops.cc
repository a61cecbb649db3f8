// scontrol reconfigure on the owner thread: the running configuration replaced by a new
// one whose changes all apply live (runtime/reconfigure.h decided that), unless it would
// end, move or strand work (work_at_risk.h).
#include <fmt/format.h>

#include "ctld/components/scheduler_config.h"
#include "ctld/components/validate.h"
#include "ctld/components/work_at_risk.h"
#include "ctld/core/controller.h"

namespace sluice::ctld {

Status Controller::ApplyConfig(const Config& next, sched::Scheduler* scheduler) {
  std::vector<std::string> risks = WorkAtRisk(config_, next, nodes_, jobs_, resvs_.all());
  if (!risks.empty()) {
    std::string why = "nothing was changed: the new configuration would cut into running work:";
    for (const std::string& r : risks) why += "\n  " + r;
    return FailedPrecondition(why);
  }
  config_ = next;
  // Nodes: kept ones keep their state; what running jobs hold is marked again.
  for (const std::string& name : nodes_.Reconfigure(config_)) {
    agents_->Reregister(AddressOf(name), "");  // its resources changed: check them again
    log_->warn("node {} changed its resources: it takes jobs once its agent registers again", name);
  }
  for (NodeRuntime& n : nodes_.nodes()) SyncFoundGpus(n);
  // Requests again: partitions' nodes and limits, features and GPU types may have changed.
  for (auto& [id, job] : jobs_.jobs()) {
    if (HoldsResources(job)) nodes_.Allocate(job, job.spec().exclusive());
    if (IsTerminal(job.state())) continue;
    Expected<sched::JobRequest> req = BuildRequest(config_, job);
    if (req.ok()) {
      jobs_.SetRequest(id, std::move(req).value());
      if (job.state() == JOB_PENDING && job.reason() == "BadConstraints") SetReason(&job, "None");
    } else if (job.state() == JOB_PENDING) {  // a running job keeps the request it ran by
      jobs_.ClearRequest(id);
      SetReason(&job, "BadConstraints");
    }
  }
  enforce_ = EnforceOf(config_);
  assoc_db_.Seed(config_);  // accounts and users the file adds
  knobs_ = SchedulerKnobsOf(config_);
  sched_.scheduler = scheduler;
  WantSchedule(true);
  return Status::Ok();
}

}  // namespace sluice::ctld
