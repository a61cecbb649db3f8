// Hostlist expressions as Slurm reads and prints them.
//   Expand("node[01-03,07],gpu-a[1-2]") -> node01 node02 node03 node07 gpu-a1 gpu-a2
//   Compress({"node01","node02","node04"}) -> "node[01-02,04]" (keeps first-seen order of
//   prefixes and of ranges, like `scontrol show hostlist`); CompressSorted sorts and
//   dedups first (`scontrol show hostlistsorted`, how Slurm prints node lists of jobs).
// Zero padding is preserved ("node[001-010]"); several bracket groups per name
// ("rack[1-2]-node[1-2]") expand as a cartesian product; commas inside brackets do
// not split names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

Expected<std::vector<std::string>> ExpandHostlist(std::string_view expr);
std::string CompressHostlist(const std::vector<std::string>& hosts);
std::string CompressHostlistSorted(std::vector<std::string> hosts);

}  // namespace sluice
