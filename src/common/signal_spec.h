// The --signal option of sbatch/srun/salloc: "[{R|B}:]SIG[@TIME]".
//   SIG   a signal name (USR1, SIGUSR1, case-insensitive) or number (1..64)
//   TIME  seconds before the time limit to send it (0..65535), default 60
//   B:    to the batch shell only; otherwise to the job's steps (R: reservation
//         overlap in Slurm; accepted and otherwise ignored)
// Bad input -> InvalidArgument("Invalid --signal specification") (Slurm's wording).
#pragma once

#include <string_view>

#include "common/status.h"

namespace sluice {

struct SignalSpec {
  int signal = 10;   // SIGUSR1
  int seconds = 60;  // before the time limit
  bool batch_only = false;
};

Expected<SignalSpec> ParseSignalSpec(std::string_view s);

}  // namespace sluice
