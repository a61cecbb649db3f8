// What changed between the configuration a controller runs and the one its file now holds
// (`scontrol reconfigure`, SIGHUP): every global key whose value differs, and the NodeName,
// PartitionName, AccountName/UserName and topology lines added, removed or changed. Each
// change says whether the controller applies it without a restart. Live: nodes,
// partitions, topology, accounts, priority, limits, scheduler and every other key the
// controller reads when it uses it. Not live: what the daemon set up at its start
// (addresses and ports, the state and accounting stores, keys, the lease, log files) and
// SlurmdTimeout, which agents fence their jobs by (a controller that waited less than its
// agents could start a job again while it still runs). Keys only the agents read apply
// in the controller at once and say that the agents take them when restarted.
// reconfigure.h applies a new file only when every change is live, so a change that needs
// a restart (which keeps running jobs) never half happens.
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
