// PreemptType / PreemptMode names and parsing (see preempt_mode.h).
#include "common/preempt_mode.h"

#include <fmt/format.h>

#include "common/text_util.h"

namespace sluice {

const char* PreemptTypeName(PreemptType t) {
  switch (t) {
    case PreemptType::kPartitionPrio:
      return "preempt/partition_prio";
    case PreemptType::kQos:
      return "preempt/qos";
    default:
      return "preempt/none";
  }
}

const char* PreemptModeName(PreemptMode m) {
  switch (m) {
    case PreemptMode::kCluster:
      return "CLUSTER";
    case PreemptMode::kCancel:
      return "CANCEL";
    case PreemptMode::kRequeue:
      return "REQUEUE";
    default:
      return "OFF";
  }
}

Expected<PreemptType> ParsePreemptType(std::string_view v) {
  for (PreemptType t : {PreemptType::kNone, PreemptType::kPartitionPrio, PreemptType::kQos}) {
    if (EqualsIgnoreCase(v, PreemptTypeName(t))) return t;
  }
  return InvalidArgument(fmt::format(
      "invalid value '{}' for PreemptType: expected preempt/none, preempt/partition_prio or "
      "preempt/qos",
      v));
}

Expected<PreemptMode> ParsePreemptMode(std::string_view v, bool allow_cluster) {
  for (PreemptMode m : {PreemptMode::kOff, PreemptMode::kCancel, PreemptMode::kRequeue}) {
    if (EqualsIgnoreCase(v, PreemptModeName(m))) return m;
  }
  if (allow_cluster && EqualsIgnoreCase(v, "CLUSTER")) return PreemptMode::kCluster;
  std::string_view first = v.substr(0, v.find(','));
  for (const char* unsupported : {"SUSPEND", "GANG", "WITHIN"}) {
    if (EqualsIgnoreCase(first, unsupported) ||
        (first != v && EqualsIgnoreCase(v.substr(v.find(',') + 1), unsupported))) {
      return InvalidArgument(fmt::format("PreemptMode={} is not supported", v));
    }
  }
  return InvalidArgument(
      fmt::format("invalid value '{}' for PreemptMode: expected OFF, CANCEL or REQUEUE", v));
}

}  // namespace sluice
