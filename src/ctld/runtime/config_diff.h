// What changed between the configuration a controller runs and the one its file now holds
// (`scontrol reconfigure`, SIGHUP): every global key whose value differs, and the NodeName,
// PartitionName, AccountName/UserName and topology lines added, removed or changed. Each
// change says whether the controller applies it without a restart: the scheduler's type
// and parameters and the log level. reconfigure.h applies a new file only when every
// change is live, so a change that needs a restart (which keeps running jobs) never half
// happens.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"

namespace sluice::ctld {

struct ConfigChange {
  std::string what;  // "SchedulerParameters: bf_order=fifo -> bf_order=sjf", "node gpu05 added"
  bool live = false;
};

std::vector<ConfigChange> DiffConfigs(const Config& before, const Config& after);

}  // namespace sluice::ctld
