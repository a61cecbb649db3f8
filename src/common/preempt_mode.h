// Preemption settings shared by the config parser, the scheduler and the controller:
// PreemptType (which jobs may preempt which) and PreemptMode (what happens to a victim).
// SUSPEND/GANG/WITHIN are not supported (rejected by the parser with a clear message).
#pragma once

#include <string_view>

#include "common/status.h"

namespace sluice {

enum class PreemptType { kNone, kPartitionPrio, kQos };
// kCluster: "use the cluster-wide PreemptMode" (a partition or QOS that sets none).
enum class PreemptMode { kCluster, kOff, kCancel, kRequeue };

// "preempt/none", "preempt/partition_prio", "preempt/qos".
const char* PreemptTypeName(PreemptType t);
// "OFF", "CANCEL", "REQUEUE" ("CLUSTER" for kCluster).
const char* PreemptModeName(PreemptMode m);
Expected<PreemptType> ParsePreemptType(std::string_view v);
// OFF|CANCEL|REQUEUE (any case); "CLUSTER" only when allow_cluster. SUSPEND, GANG and
// WITHIN give "PreemptMode=<v> is not supported"; anything else "invalid value".
Expected<PreemptMode> ParsePreemptMode(std::string_view v, bool allow_cluster);

}  // namespace sluice
