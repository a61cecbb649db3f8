#include "ctld/runtime/reconfigure.h"

#include "ctld/components/scheduler_config.h"
#include "ctld/core/controller.h"
#include "ctld/runtime/config_check.h"
#include "ctld/runtime/config_diff.h"
#include "ctld/runtime/owner_loop.h"

namespace sluice::ctld {

Reconfigurer::Reconfigurer(std::string path, Config current, log::Logger log)
    : path_(std::move(path)), current_(std::move(current)), log_(std::move(log)) {
  // The daemon checked this configuration before it got here (CheckControllerConfig).
  scheduler_ = sched::MakeScheduler(SchedulerConfigFrom(current_).value());
}

Expected<std::vector<std::string>> Reconfigurer::Reconfigure() {
  std::lock_guard<std::mutex> lock(mu_);
  Expected<Config> next = LoadConfigFile(path_);
  if (!next.ok()) return InvalidArgument(next.status().message());
  if (auto problems = CheckControllerConfig(*next); !problems.empty()) {
    std::string why;
    for (const std::string& where : LocateConfigProblems(path_, problems))
      why += (why.empty() ? "" : "\n") + where;
    return InvalidArgument(why);
  }
  std::vector<std::string> applied, need_restart;
  for (const ConfigChange& c : DiffConfigs(current_, *next))
    (c.live ? applied : need_restart).push_back(c.what);
  if (!need_restart.empty()) {
    std::string why =
        "nothing was changed: these changes need sluicectld restarted (running "
        "jobs keep running):";
    for (const std::string& c : need_restart) why += "\n  " + c;
    return FailedPrecondition(why);
  }
  if (applied.empty()) return applied;
  std::unique_ptr<sched::Scheduler> scheduler =
      sched::MakeScheduler(SchedulerConfigFrom(*next).value());
  if (loop_ != nullptr) {
    // Refused (work at risk) or the loop stopped: nothing was applied, current_ stays.
    Expected<bool> done = loop_->Call<bool>([&](Controller* c) -> Expected<bool> {
      RETURN_IF_ERROR(c->ApplyConfig(*next, scheduler.get()));
      return true;
    });
    if (!done.ok()) return done.status();
  }
  scheduler_ = std::move(scheduler);  // the owner thread uses the new one from now on
  log_->set_level(log::ParseLevel(next->ctld_debug).value());
  current_ = std::move(*next);
  for (const std::string& c : applied) log_->warn("reconfigured {}", c);
  return applied;
}

}  // namespace sluice::ctld
