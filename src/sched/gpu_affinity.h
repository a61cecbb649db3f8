// Choosing which of a node's free GPUs a job gets: the best-connected set. Pure.
//
// `weight[a][b]` is the affinity between the GPUs at bits a and b (symmetric use: the
// score of a set is the sum of weight[a][b] over its ordered pairs a != b). Among the
// subsets of `free` with `count` bits, the one with the highest score wins; ties go to
// the set that leaves the remaining free GPUs best connected, then to the lowest bits.
// Small candidate sets are searched exhaustively, larger ones greedily. With an empty
// `weight` (no topology) the lowest `count` free bits are chosen.
#pragma once

#include <cstdint>
#include <vector>

namespace sluice::sched {

using AffinityMatrix = std::vector<std::vector<int>>;

uint64_t ChooseGpus(uint64_t free, int count, const AffinityMatrix& weight);

// The lowest `count` set bits of `mask`.
uint64_t LowestBits(uint64_t mask, int count);

}  // namespace sluice::sched
