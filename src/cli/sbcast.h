// sbcast: copies a file to every node of a job. Inside an allocation ($SLURM_JOB_ID) or
// with -j JOB it runs a step of one task per node (--overlap, so it never waits for the
// job's own steps) whose stdin srun feeds from SOURCE on every node (srun -i all); each
// task writes DEST through a temporary file and renames it into place. Options:
// -f/--force (replace an existing DEST; else "File exists" from that node),
// -p/--preserve (SOURCE's mode and modification time), -j/--jobid=ID[.step],
// -C/--compress, -F/--fanout, -s/--size, -t/--timeout (accepted: the step's stream
// needs none of them), -v, -V, --usage, --help.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

int RunSbcast(const std::vector<std::string>& args, CliEnv& env);

}  // namespace sluice
