// SwitchTree: the network as a tree of switches (topology.conf), for placing multi-node
// jobs under the lowest common switch. Pure.
//
// Pick chooses `want` of the candidate nodes: under the lowest-level switch (leaves are
// level 0) that has enough candidates, the one with the fewest candidates among those
// (best fit, ties by switch order); inside it, leaves with the most candidates first so
// the job spans as few leaf switches as possible. With `max_leaves` > 0 a choice may span
// at most that many leaf switches (the --switches limit), else Pick fails. Nodes that hang
// off no switch are only reachable through the whole cluster (a virtual root).
#pragma once

#include <cstddef>
#include <vector>

#include "sched/types.h"

namespace sluice::sched {

class SwitchTree {
 public:
  // Node indices follow snapshot.nodes.
  static SwitchTree Build(const ClusterSnapshot& snapshot);

  bool empty() const { return parent_.empty(); }

  // `candidates`: node indices in preference order. Fills `chosen` (ascending).
  bool Pick(const std::vector<int>& candidates, size_t want, int max_leaves,
            std::vector<int>* chosen) const;

  // How many distinct leaf switches `nodes` span (nodes without a switch count as one
  // each).
  int LeafCount(const std::vector<int>& nodes) const;

 private:
  // Candidates of `within` (a switch, or -1 for all) taken leaf by leaf; false when more
  // than max_leaves leaves would be needed.
  bool TakeUnder(int within, const std::vector<int>& candidates, size_t want, int max_leaves,
                 std::vector<int>* chosen) const;
  bool Under(int node, int within) const;

  std::vector<int> node_leaf_;  // by node index; -1 = none
  std::vector<int> parent_;     // by switch index
  std::vector<int> level_;      // by switch index: 0 for leaves
};

}  // namespace sluice::sched
