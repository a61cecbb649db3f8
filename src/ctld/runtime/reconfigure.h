// Reconfigurer: `scontrol reconfigure` and SIGHUP. Reads the config file again, parses and
// checks it completely (config_check.h) before touching anything, and compares it with the
// configuration the controller runs (config_diff.h). When every change can be applied
// live, applies them at once on the owner thread (Controller::ApplyConfig: nodes,
// partitions, limits, priorities; a new scheduler; the log level) and answers what
// changed. Otherwise it applies nothing, keeps the last good configuration it runs, and
// says why: the file's errors with their lines, the changes that need sluicectld
// restarted (running jobs survive a restart), or the running work the new file would cut
// into (ctld/components/work_at_risk.h). Thread-safe: calls are serialized.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/config.h"
#include "log/log.h"
#include "sched/scheduler.h"

namespace sluice::ctld {

class OwnerLoop;

class Reconfigurer {
 public:
  // `current` is what the controller was started with; the scheduler built from it is
  // owned here (scheduler(): for the controller's SchedDeps).
  Reconfigurer(std::string path, Config current, log::Logger log);
  sched::Scheduler* scheduler() const { return scheduler_.get(); }
  const Config& current() const { return current_; }  // the configuration applied last
  void SetLoop(OwnerLoop* loop) { loop_ = loop; }

  // The changes applied, one line each (none: the file did not change). Errors:
  // InvalidArgument (the file is wrong: "sluice.conf:12: ..."), FailedPrecondition
  // (changes that need a restart, or work at risk).
  Expected<std::vector<std::string>> Reconfigure();

 private:
  std::mutex mu_;
  const std::string path_;
  Config current_;
  log::Logger log_;
  OwnerLoop* loop_ = nullptr;
  std::unique_ptr<sched::Scheduler> scheduler_;
};

}  // namespace sluice::ctld
