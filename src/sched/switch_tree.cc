// Lowest-common-switch placement. See switch_tree.h.
#include "sched/switch_tree.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace sluice::sched {

SwitchTree SwitchTree::Build(const ClusterSnapshot& snapshot) {
  SwitchTree tree;
  const int count = static_cast<int>(snapshot.switches.size());
  if (count == 0) return tree;
  tree.parent_.resize(count, -1);
  tree.level_.assign(count, 0);
  for (int s = 0; s < count; ++s) {
    const int p = snapshot.switches[s].parent;
    tree.parent_[s] = p >= 0 && p < count && p != s ? p : -1;
  }
  // Levels: a parent sits one above its highest child (bounded walk guards cycles).
  for (int s = 0; s < count; ++s) {
    int level = 0;
    for (int p = tree.parent_[s], hops = 0; p >= 0 && hops < count; p = tree.parent_[p], ++hops)
      tree.level_[p] = std::max(tree.level_[p], ++level);
  }
  tree.node_leaf_.reserve(snapshot.nodes.size());
  for (const Node& node : snapshot.nodes)
    tree.node_leaf_.push_back(node.leaf_switch < count ? node.leaf_switch : -1);
  return tree;
}

bool SwitchTree::Under(int node, int within) const {
  if (within < 0) return true;
  int s = node_leaf_[node];
  for (size_t hops = 0; s >= 0 && hops <= parent_.size(); s = parent_[s], ++hops)
    if (s == within) return true;
  return false;
}

int SwitchTree::LeafCount(const std::vector<int>& nodes) const {
  std::vector<int> leaves;
  int unattached = 0;
  for (int n : nodes) {
    if (node_leaf_[n] < 0)
      ++unattached;
    else
      leaves.push_back(node_leaf_[n]);
  }
  std::sort(leaves.begin(), leaves.end());
  return static_cast<int>(std::unique(leaves.begin(), leaves.end()) - leaves.begin()) + unattached;
}

bool SwitchTree::TakeUnder(int within, const std::vector<int>& candidates, size_t want,
                           int max_leaves, std::vector<int>* chosen) const {
  // Group by leaf (-1-n for an unattached node: its own group), keeping preference order.
  std::map<int, std::vector<int>> groups;
  std::vector<int> order;  // group keys by first appearance
  for (int n : candidates) {
    if (!Under(n, within)) continue;
    const int key = node_leaf_[n] >= 0 ? node_leaf_[n] : -1 - n;
    auto [it, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    it->second.push_back(n);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return groups[a].size() > groups[b].size(); });
  chosen->clear();
  int leaves = 0;
  for (int key : order) {
    if (chosen->size() >= want) break;
    if (max_leaves > 0 && leaves == max_leaves) return false;
    ++leaves;
    for (int n : groups[key]) {
      if (chosen->size() >= want) break;
      chosen->push_back(n);
    }
  }
  if (chosen->size() < want) return false;
  std::sort(chosen->begin(), chosen->end());
  return true;
}

bool SwitchTree::Pick(const std::vector<int>& candidates, size_t want, int max_leaves,
                      std::vector<int>* chosen) const {
  if (candidates.size() < want) return false;
  if (empty()) {
    chosen->assign(candidates.begin(), candidates.begin() + want);
    std::sort(chosen->begin(), chosen->end());
    return true;
  }
  std::vector<int> under(parent_.size(), 0);
  for (int n : candidates) {
    int s = node_leaf_[n];
    for (size_t hops = 0; s >= 0 && hops <= parent_.size(); s = parent_[s], ++hops) ++under[s];
  }
  std::vector<std::tuple<int, int, int>> options;  // (level, candidates, switch)
  for (int s = 0; s < static_cast<int>(parent_.size()); ++s)
    if (under[s] >= static_cast<int>(want)) options.emplace_back(level_[s], under[s], s);
  std::sort(options.begin(), options.end());
  for (const auto& [level, count, s] : options)
    if (TakeUnder(s, candidates, want, max_leaves, chosen)) return true;
  return TakeUnder(-1, candidates, want, max_leaves, chosen);
}

}  // namespace sluice::sched
