// `sbatch --begin` times, as Slurm reads them (local time): everything sacct -S takes
// (cli/sacct.h ParseSacctTime: now[+N[units]], YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY],
// MMDD[YY], HH:MM[:SS], epoch seconds, today), where a bare time of day that has passed
// means tomorrow, plus the words midnight (the coming one), noon, elevenses (11:00),
// fika (15:00), teatime (16:00) and tomorrow (its 00:00).
//   ParseBeginTime("16:00", <14:00 today>) -> today 16:00; at 17:00 -> tomorrow 16:00
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sluice {

Expected<int64_t> ParseBeginTime(const std::string& spec, int64_t now);

}  // namespace sluice
