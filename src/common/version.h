// Sluice's own version (the CMake project's), which node agents report at registration
// (NodeInfo.version, `scontrol show node` Version=, `sluice doctor`). The commands print
// Slurm's version for --version (cli_env.h kSlurmVersion): clients check that one.
#pragma once

namespace sluice {

const char* SluiceVersion();

}  // namespace sluice
