// Best-connected GPU subsets. See gpu_affinity.h.
#include "sched/gpu_affinity.h"

#include <bit>

namespace sluice::sched {

namespace {

constexpr int kExhaustiveMaxFree = 12;  // C(12, 6) = 924 subsets at most

int Weight(const AffinityMatrix& w, int a, int b) {
  if (a >= static_cast<int>(w.size()) || b >= static_cast<int>(w[a].size())) return 0;
  return w[a][b];
}

int Score(uint64_t set, const AffinityMatrix& w) {
  int score = 0;
  for (uint64_t a = set; a; a &= a - 1) {
    const int i = std::countr_zero(a);
    for (uint64_t b = set; b; b &= b - 1) {
      const int j = std::countr_zero(b);
      if (i != j) score += Weight(w, i, j);
    }
  }
  return score;
}

// The k-th set bit of mask (k from 0).
int NthBit(uint64_t mask, int k) {
  for (; k > 0; --k) mask &= mask - 1;
  return std::countr_zero(mask);
}

uint64_t Exhaustive(uint64_t free, int count, const AffinityMatrix& w) {
  const int n = std::popcount(free);
  uint64_t best = 0;
  int best_score = -1, best_rest = -1;
  // Gosper's hack over n-bit combinations, mapped onto the free bits; ascending order
  // visits the lowest-bit sets first, so strict improvement keeps ties on low bits.
  for (uint64_t c = (uint64_t{1} << count) - 1; c < (uint64_t{1} << n);) {
    uint64_t set = 0;
    for (uint64_t b = c; b; b &= b - 1) set |= uint64_t{1} << NthBit(free, std::countr_zero(b));
    const int score = Score(set, w);
    const int rest = Score(free & ~set, w);
    if (score > best_score || (score == best_score && rest > best_rest)) {
      best = set, best_score = score, best_rest = rest;
    }
    const uint64_t low = c & (~c + 1);
    const uint64_t ripple = c + low;
    c = (((ripple ^ c) >> 2) / low) | ripple;
  }
  return best;
}

// Greedy: from each seed, repeatedly add the free GPU with the highest affinity to the set.
uint64_t Greedy(uint64_t free, int count, const AffinityMatrix& w) {
  uint64_t best = 0;
  int best_score = -1;
  for (uint64_t s = free; s; s &= s - 1) {
    uint64_t set = s & (~s + 1);
    while (std::popcount(set) < count) {
      int pick = -1, pick_gain = -1;
      for (uint64_t c = free & ~set; c; c &= c - 1) {
        const int j = std::countr_zero(c);
        int gain = 0;
        for (uint64_t b = set; b; b &= b - 1) gain += Weight(w, std::countr_zero(b), j);
        if (gain > pick_gain) pick = j, pick_gain = gain;
      }
      set |= uint64_t{1} << pick;
    }
    const int score = Score(set, w);
    if (score > best_score) best = set, best_score = score;
  }
  return best;
}

}  // namespace

uint64_t LowestBits(uint64_t mask, int count) {
  uint64_t out = 0;
  for (int i = 0; i < count && mask != 0; ++i) {
    const uint64_t bit = mask & (~mask + 1);
    out |= bit;
    mask &= ~bit;
  }
  return out;
}

uint64_t ChooseGpus(uint64_t free, int count, const AffinityMatrix& weight) {
  const int n = std::popcount(free);
  if (weight.empty() || count <= 0 || count >= n) return LowestBits(free, count);
  if (n <= kExhaustiveMaxFree) return Exhaustive(free, count, weight);
  return Greedy(free, count, weight);
}

}  // namespace sluice::sched
