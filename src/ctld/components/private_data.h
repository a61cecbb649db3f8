// PrivateData=jobs,usage,users,accounts,reservations (slurm.conf): what a non-admin
// may not see of other users. Parsed from Config::raw["PrivateData"] (comma list, case
// insensitive; Slurm's other items cloud/events/nodes/partitions are accepted and have
// no effect here). Unknown items are an error naming the item.
// The filters are Access::HidePrivate (access.h):
//   jobs          squeue / scontrol show job / sprio / squeue -s list only the caller's
//                 jobs and steps; asking for another user's job by id -> "Invalid job id
//                 specified" (as if it did not exist)
//   usage         sshare lists only the caller's own user rows (account rows stay)
//   reservations  scontrol show reservation lists only reservations naming the caller
//   users         sacctmgr show user / assoc (and withassoc) list only the caller's own
//                 user and associations (and, for assoc, the accounts they are in)
//   accounts      sacctmgr show account lists only accounts the caller has an
//                 association in (Slurm: accounts they coordinate; no coordinators here)
#pragma once

#include <string_view>

#include "common/config.h"
#include "common/status.h"

namespace sluice::ctld {

struct PrivateData {
  bool jobs = false;
  bool usage = false;
  bool users = false;
  bool accounts = false;
  bool reservations = false;
  bool Any() const { return jobs || usage || users || accounts || reservations; }
};

Expected<PrivateData> ParsePrivateData(std::string_view value);
// From config.raw; an invalid value (refused at controller start) counts as everything private.
PrivateData PrivateDataOf(const Config& config);

}  // namespace sluice::ctld
