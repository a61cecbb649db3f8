// FreeIndex: a max-segment tree over nodes (in configuration order) of what each node has
// free now (CPUs, memory, GPUs, idle). Lets first-fit placement skip full nodes: Scan
// visits, in ascending order, only nodes whose free capacity may satisfy a need (each
// dimension is bounded separately, so a visited node may still not fit). Pure.
#pragma once

#include <algorithm>
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
