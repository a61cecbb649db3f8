// Hostlist expressions as Slurm reads and prints them.
//   ExpandHostlist("node[01-03,07],gpu-a[1-2]") -> node01 node02 node03 node07 gpu-a1 gpu-a2
//   CompressHostlist({"node04","node01","node02"}) -> "node[04,01-02]": keeps the input
//     order; a host extends the previous range when it continues it, and consecutive
//     ranges with the same prefix share one bracket (`scontrol show hostlist`).
//   CompressHostlistSorted(...) sorts (natural order of prefixes, then number) and
//     dedups first -> "node[01-02,04]" (`scontrol show hostlistsorted`, and how Slurm
//     prints the node lists of jobs and partitions).
// Expansion: names are separated by commas or whitespace outside brackets; commas
// inside brackets separate ranges; zero padding follows the width of the range start
// as written ("node[001-010]", "node[8-10]" -> node8 node9 node10); several bracket
// groups per name ("rack[1-2]-n[1-2]") expand as a cartesian product, the first group
// varying slowest; duplicates are kept. Malformed input ("node[1-", "node[3-1]",
// "node[a-b]", "node[]", nested brackets), more than kMaxHostlistSize names (64K, as
// many as a configuration may define) or names adding up to more than kMaxHostlistBytes
// yields an InvalidArgument status "Invalid hostlist '<expr>': <why>"; both bounds are
// computed from the ranges before anything is expanded.
// Compression: only a trailing digit run is numeric; names whose digits are written
// with different widths join one range when no name changes ("node9,node10" ->
// "node[9-10]", but "node1,node01" -> "node[1,01]").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

inline constexpr size_t kMaxHostlistSize = 65536;
inline constexpr size_t kMaxHostlistBytes = 2 << 20;

// At most min(max_names, kMaxHostlistSize) names ("more than N names" otherwise); the
// count is computed from the ranges before anything is expanded.
Expected<std::vector<std::string>> ExpandHostlist(std::string_view expr,
                                                  size_t max_names = kMaxHostlistSize);
// The number of names ExpandHostlist would return, in O(expr.size()), with its errors.
Expected<size_t> CountHostlist(std::string_view expr, size_t max_names = kMaxHostlistSize);
std::string CompressHostlist(const std::vector<std::string>& hosts);
std::string CompressHostlistSorted(std::vector<std::string> hosts);

// Natural string order ("n2" < "n10"): <0, 0 or >0.
int NaturalCompare(std::string_view a, std::string_view b);

}  // namespace sluice
