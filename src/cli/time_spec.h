// Slurm's time specifications (local time), for sacct/sreport -S/-E and sbatch --begin.
//   ParseSacctTime: now[+-N[units]], YYYY-MM-DD[THH:MM[:SS]] (or -HH:MM[:SS]), MM/DD[/YY],
//   MMDD[YY], HH:MM[:SS] (today), epoch seconds, today/midnight (today's 00:00). ParseBeginTime:
//   the same, but a bare time of day that has passed means tomorrow, plus midnight (the coming
//   one), noon, elevenses (11:00), fika (15:00), teatime (16:00) and tomorrow (its 00:00):
//   ParseBeginTime("16:00", <14:00 today>) -> today 16:00; at 17:00 -> tomorrow 16:00
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sluice {

Expected<int64_t> ParseSacctTime(const std::string& s, int64_t now);
Expected<int64_t> ParseBeginTime(const std::string& spec, int64_t now);
// 00:00 local time of the day of `now` (sacct's and sreport's default start/end).
int64_t LocalMidnight(int64_t now);

}  // namespace sluice
