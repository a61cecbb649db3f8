// Fair Tree fair-share ranking (see priority.h).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "sched/priority.h"

namespace sluice::sched {
namespace {

struct TreeNode {
  Assoc a;
  bool is_user = false;
  int depth = 0;
  std::vector<int> children;
  ShareRow row;
  double fs = -1;
};

class FairTree {
 public:
  Status Build(const std::vector<Assoc>& assocs);
  void Compute();
  std::vector<ShareRow> Rows() const;

 private:
  Status AddAccounts(const std::vector<Assoc>& assocs);
  Status AddUsers(const std::vector<Assoc>& assocs);
  int Add(const Assoc& a, bool is_user, int parent);
  double SumUsage(int i);
  void Level(int parent);
  void Rank(int parent, int64_t* next, int64_t total);
  void Emit(int i, std::vector<ShareRow>* out) const;

  std::vector<TreeNode> nodes_;
  std::map<std::string, int> accounts_;
  int64_t users_ = 0;
};

int FairTree::Add(const Assoc& a, bool is_user, int parent) {
  TreeNode n;
  n.a = a;
  n.is_user = is_user;
  n.depth = parent < 0 ? 0 : nodes_[parent].depth + 1;
  nodes_.push_back(std::move(n));
  int idx = static_cast<int>(nodes_.size()) - 1;
  if (parent >= 0) nodes_[parent].children.push_back(idx);
  return idx;
}

Status FairTree::AddAccounts(const std::vector<Assoc>& assocs) {
  std::vector<const Assoc*> left;
  for (const auto& a : assocs) {
    if (!a.user.empty() || a.account == "root") continue;
    if (accounts_.count(a.account) != 0) {
      return InvalidArgument(fmt::format("duplicate account '{}'", a.account));
    }
    accounts_[a.account] = -1;
    left.push_back(&a);
  }
  bool progress = true;
  while (!left.empty() && progress) {
    progress = false;
    for (auto it = left.begin(); it != left.end();) {
      auto parent = accounts_.find((*it)->parent.empty() ? "root" : (*it)->parent);
      if (parent == accounts_.end() || parent->second < 0) {
        ++it;
        continue;
      }
      accounts_[(*it)->account] = Add(**it, false, parent->second);
      it = left.erase(it);
      progress = true;
    }
  }
  if (left.empty()) return Status::Ok();
  return InvalidArgument(
      fmt::format("account '{}' has an unknown parent '{}'", left[0]->account, left[0]->parent));
}

Status FairTree::AddUsers(const std::vector<Assoc>& assocs) {
  std::map<std::pair<std::string, std::string>, bool> seen;
  for (const auto& a : assocs) {
    if (a.user.empty()) continue;
    auto acct = accounts_.find(a.account);
    if (acct == accounts_.end()) {
      return InvalidArgument(
          fmt::format("user '{}' is in unknown account '{}'", a.user, a.account));
    }
    if (!seen.emplace(std::make_pair(a.account, a.user), true).second) {
      return InvalidArgument(fmt::format("duplicate user '{}' in account '{}'", a.user, a.account));
    }
    Assoc u = a;
    u.parent = a.account;
    Add(u, true, acct->second);
    ++users_;
  }
  return Status::Ok();
}

Status FairTree::Build(const std::vector<Assoc>& assocs) {
  Assoc root;
  root.account = "root";
  accounts_["root"] = Add(root, false, -1);
  RETURN_IF_ERROR(AddAccounts(assocs));
  return AddUsers(assocs);
}

double FairTree::SumUsage(int i) {
  TreeNode& n = nodes_[i];
  if (n.is_user) return n.row.raw_usage = std::max(0.0, n.a.usage);
  double sum = 0;
  for (int c : n.children) sum += SumUsage(c);
  return n.row.raw_usage = sum;
}

// S, U, LF and NormShares of the children of `parent`.
void FairTree::Level(int parent) {
  const TreeNode& p = nodes_[parent];
  double shares = 0;
  for (int c : p.children) shares += static_cast<double>(std::max<int64_t>(0, nodes_[c].a.shares));
  for (int c : p.children) {
    ShareRow& r = nodes_[c].row;
    double s =
        shares > 0 ? static_cast<double>(std::max<int64_t>(0, nodes_[c].a.shares)) / shares : 0;
    double u = p.row.raw_usage > 0 ? r.raw_usage / p.row.raw_usage : 0;
    r.norm_shares = s * (parent == 0 ? 1.0 : p.row.norm_shares);
    r.effective_usage = u;
    if (s <= 0)
      r.level_fs = 0;
    else
      r.level_fs = u > 0 ? s / u : std::numeric_limits<double>::infinity();
    if (!nodes_[c].is_user) Level(c);
  }
}

void FairTree::Rank(int parent, int64_t* next, int64_t total) {
  std::vector<int> order = nodes_[parent].children;
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    const TreeNode& a = nodes_[x];
    const TreeNode& b = nodes_[y];
    if (a.row.level_fs != b.row.level_fs) return a.row.level_fs > b.row.level_fs;
    if (a.is_user != b.is_user) return a.is_user;
    return a.is_user ? a.a.user < b.a.user : a.a.account < b.a.account;
  });
  for (size_t i = 0; i < order.size();) {
    if (!nodes_[order[i]].is_user) {
      Rank(order[i++], next, total);
      continue;
    }
    size_t j = i;
    while (j < order.size() && nodes_[order[j]].is_user &&
           nodes_[order[j]].row.level_fs == nodes_[order[i]].row.level_fs) {
      ++j;
    }
    double fs = static_cast<double>(*next) / static_cast<double>(total);
    for (size_t k = i; k < j; ++k) nodes_[order[k]].fs = nodes_[order[k]].a.shares > 0 ? fs : 0.0;
    *next -= static_cast<int64_t>(j - i);
    i = j;
  }
}

void FairTree::Compute() {
  SumUsage(0);
  ShareRow& root = nodes_[0].row;
  root.effective_usage = 1.0;
  root.norm_shares = 0;
  Level(0);
  int64_t next = users_;
  if (users_ > 0) Rank(0, &next, users_);
}

void FairTree::Emit(int i, std::vector<ShareRow>* out) const {
  const TreeNode& n = nodes_[i];
  ShareRow r = n.row;
  r.account = n.a.account;
  r.user = n.is_user ? n.a.user : "";
  r.depth = n.depth;
  r.raw_shares = i == 0 ? 0 : n.a.shares;
  r.fairshare = n.is_user ? n.fs : -1;
  out->push_back(std::move(r));
  std::vector<int> order = n.children;
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    const TreeNode& a = nodes_[x];
    const TreeNode& b = nodes_[y];
    if (a.is_user != b.is_user) return a.is_user;
    return a.is_user ? a.a.user < b.a.user : a.a.account < b.a.account;
  });
  for (int c : order) Emit(c, out);
}

std::vector<ShareRow> FairTree::Rows() const {
  std::vector<ShareRow> out;
  Emit(0, &out);
  return out;
}

}  // namespace

Expected<std::vector<ShareRow>> ComputeFairTree(const std::vector<Assoc>& assocs) {
  FairTree tree;
  RETURN_IF_ERROR(tree.Build(assocs));
  tree.Compute();
  return tree.Rows();
}

}  // namespace sluice::sched
