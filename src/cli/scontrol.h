// scontrol: RunScontrol(args, env) -> exit code.
//   show job [id] | node [name] | partition [name] | config | hostnames [expr]
//        | hostlist expr | hostlistsorted expr           (-o/--oneliner: one line each)
//   update JobId=ids TimeLimit= Name= Comment=  |  update NodeName=expr State=DRAIN|
//        RESUME|DOWN|UNDRAIN|IDLE Reason=...
//   hold | uhold | release | requeue  ids...     ping     version
// Keywords match by unambiguous prefix ("sh jo 5", "show hostname"); `show hostnames`
// without a list reads $SLURM_JOB_NODELIST, then $SLURM_NODELIST. Errors as Slurm's:
// "slurm_load_jobs error: Invalid job id specified" (exit 1), "slurm_update error: ...".
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunScontrol(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
