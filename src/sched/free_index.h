// FreeIndex: a max-segment tree over nodes (in configuration order) of what each node has
// free now (CPUs, memory, GPUs, idle). Lets first-fit placement skip full nodes: Scan
// visits, in ascending order, only nodes whose free capacity may satisfy a need (each
// dimension is bounded separately, so a visited node may still not fit). Pure.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace sluice::sched {

class FreeIndex {
 public:
  struct Value {
    int32_t cpus = -1;  // -1: the node can take nothing (unavailable or held exclusively)
    int32_t gpus = 0;
    int64_t mem = 0;
    bool idle = false;  // nothing running: an exclusive job may take it
  };

  void Reset(const std::vector<Value>& leaves) {
    size_ = 1;
    while (size_ < leaves.size()) size_ *= 2;
    tree_.assign(2 * size_, Value{});
    std::copy(leaves.begin(), leaves.end(), tree_.begin() + size_);
    for (size_t i = size_ - 1; i >= 1; --i) Pull(i);
  }

  void Set(size_t leaf, const Value& value) {
    size_t i = size_ + leaf;
    tree_[i] = value;
    for (i /= 2; i >= 1; i /= 2) Pull(i);
  }

  // The componentwise maximum over all nodes.
  const Value& Max() const { return tree_[1]; }

  static bool Covers(const Value& have, const Value& need) {
    return have.cpus >= need.cpus && have.gpus >= need.gpus && have.mem >= need.mem &&
           (!need.idle || have.idle);
  }

  // Calls visit(leaf) for candidate leaves in ascending order until it returns false.
  template <typename Visit>
  void Scan(const Value& need, Visit&& visit) const {
    if (tree_.empty()) return;
    ScanFrom(1, need, visit);
  }

 private:
  void Pull(size_t i) {
    const Value& a = tree_[2 * i];
    const Value& b = tree_[2 * i + 1];
    tree_[i] = Value{std::max(a.cpus, b.cpus), std::max(a.gpus, b.gpus), std::max(a.mem, b.mem),
                     a.idle || b.idle};
  }

  template <typename Visit>
  bool ScanFrom(size_t i, const Value& need, Visit& visit) const {
    if (!Covers(tree_[i], need)) return true;
    if (i >= size_) return visit(static_cast<int>(i - size_));
    return ScanFrom(2 * i, need, visit) && ScanFrom(2 * i + 1, need, visit);
  }

  size_t size_ = 0;
  std::vector<Value> tree_;
};

}  // namespace sluice::sched

namespace sluice::sched {

// EarliestIndex: a min-segment tree over nodes of, for each GPU count k in 0..kLevels-1,
// the earliest time from which the node has k GPUs free in some slot (kNoTime: never).
// A lower bound on when a single-node request for k GPUs can start there, so searches
// skip every node whose bound is not below the best start found so far. Pure.
class EarliestIndex {
 public:
  static constexpr int kLevels = 9;
  static constexpr int64_t kNoTime = INT64_MAX;
  using Bounds = std::array<int64_t, kLevels>;

  void Reset(const std::vector<Bounds>& leaves) {
    size_ = 1;
    while (size_ < leaves.size()) size_ *= 2;
    Bounds none;
    none.fill(kNoTime);
    tree_.assign(2 * size_, none);
    std::copy(leaves.begin(), leaves.end(), tree_.begin() + size_);
    for (size_t i = size_ - 1; i >= 1; --i) Pull(i);
  }

  void Set(size_t leaf, const Bounds& bounds) {
    size_t i = size_ + leaf;
    tree_[i] = bounds;
    for (i /= 2; i >= 1; i /= 2) Pull(i);
  }

  // Calls visit(leaf) in ascending order for leaves whose bound at `level` is below
  // bound() (re-read after every visit, so the caller may tighten it).
  template <typename Bound, typename Visit>
  void Scan(int level, Bound&& bound, Visit&& visit) const {
    if (!tree_.empty()) ScanFrom(1, level, bound, visit);
  }

 private:
  void Pull(size_t i) {
    for (int k = 0; k < kLevels; ++k) tree_[i][k] = std::min(tree_[2 * i][k], tree_[2 * i + 1][k]);
  }

  template <typename Bound, typename Visit>
  void ScanFrom(size_t i, int level, Bound& bound, Visit& visit) const {
    if (tree_[i][level] >= bound()) return;
    if (i >= size_) {
      visit(static_cast<int>(i - size_));
      return;
    }
    ScanFrom(2 * i, level, bound, visit);
    ScanFrom(2 * i + 1, level, bound, visit);
  }

  size_t size_ = 0;
  std::vector<Bounds> tree_;
};

}  // namespace sluice::sched
