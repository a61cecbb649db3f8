// scontrol's record layouts, as Slurm 22.05 prints them:
//   FormatJobRecord:       "JobId=14 JobName=bigjob\n   UserId=root(0) ...\n   Power=\n   \n\n"
//   FormatNodeRecord:      "NodeName=node01 Arch=x86_64 CoresPerSocket=8 \n   CPUAlloc=..."
//   FormatPartitionRecord: "PartitionName=gpu\n   AllowGroups=ALL ...\n\n"
//   FormatReservationRecord: "ReservationName=r StartTime=... Duration=01:00:00\n   Nodes=..."
//   OneLiner:              a record on one line (scontrol -o)
// Values Sluice does not track print as Slurm prints unset ones ((null), N/A, *).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "types.pb.h"

namespace sluice {

std::string FormatJobRecord(const JobInfo& job, int64_t now);
std::string FormatNodeRecord(const NodeInfo& node,
                             const std::function<std::string(uint32_t)>& user);
std::string FormatPartitionRecord(const PartitionInfo& part, const std::vector<NodeInfo>& nodes);
std::string FormatReservationRecord(const ReservationInfo& resv, int64_t now);
std::string OneLiner(const std::string& record);

}  // namespace sluice
