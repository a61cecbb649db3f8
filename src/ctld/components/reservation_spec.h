// The words of `scontrol create|update reservation` (Key=Value, keys case-insensitive),
// parsed into a ResvEdit (only what was given is set). Pure; `now` resolves relative times.
//   ReservationName=|Reservation=  name
//   StartTime=  now | now+N[seconds|minutes|hours|days|weeks] | YYYY-MM-DD[THH:MM[:SS]] |
//               HH:MM[:SS] (today, or tomorrow when already past) | today | tomorrow
//   EndTime=    same forms;  Duration= minutes | [D-]HH:MM[:SS] | UNLIMITED (one year)
//   Nodes=      hostlist | ALL;  NodeCnt=N;  TRES=cpu=N,gres/gpu=N (also gres/gpu:N)
//   Users=a,b (or -a,b: all but);  Accounts=x,y (or -x);  PartitionName=|Partition=
//   Flags=MAINT,IGNORE_JOBS,DAILY,WEEKLY,OVERLAP,... (Flags+= / Flags-= on update)
// Errors carry Slurm's wording ("Invalid StartTime value: x", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::ctld {

inline constexpr int64_t kResvUnlimitedS = 365 * 86400;  // Duration=UNLIMITED

struct ResvEdit {
  std::optional<std::string> name;
  std::optional<int64_t> start, end, duration_s;
  std::optional<std::string> nodes;  // "ALL" or a hostlist expression
  std::optional<int> node_cnt;
  std::optional<int64_t> tres_cpus, tres_gpus;
  std::optional<std::vector<std::string>> users, accounts;
  bool users_denied = false, accounts_denied = false;
  std::optional<std::string> partition;
  std::optional<std::vector<std::string>> flags;     // Flags= (replace)
  std::vector<std::string> flags_add, flags_remove;  // Flags+= / Flags-=
};

Expected<ResvEdit> ParseReservationArgs(const std::vector<std::string>& args, int64_t now);
Expected<int64_t> ParseResvTime(std::string_view s, int64_t now);

// Flags in Slurm's display order; false when `flag` is not a reservation flag.
bool IsResvFlag(const std::string& flag);
std::vector<std::string> SortResvFlags(std::vector<std::string> flags);

}  // namespace sluice::ctld
