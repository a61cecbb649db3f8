// Node feature constraints (--constraint): a small expression language over feature
// names. Grammar (& binds tighter than |, parentheses group):
//   expr   := term ('|' term)*
//   term   := factor ('&' factor)*
//   factor := NAME | '(' expr ')'
// NAME is letters, digits and any of "_-.:+/". Whitespace is ignored. Slurm's bracketed
// "matching OR" ([a|b]) and counts (a*2) are rejected with a clear error. An empty
// constraint matches every node. Pure: no I/O.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::sched {

class FeatureExpr {
 public:
  // Parses `text`; on error the Status message names the problem and its position.
  static Expected<FeatureExpr> Parse(std::string_view text);

  // True when the node's `features` satisfy the expression (always, when empty).
  bool Matches(const std::vector<std::string>& features) const;
  bool empty() const { return root_ < 0; }
  // The feature names the expression mentions, in order of appearance.
  std::vector<std::string> Names() const;

  // Parse tree, stored flat: children are indices into nodes_; root_ is the top.
  struct ExprNode {
    enum class Kind { kFeature, kAnd, kOr } kind = Kind::kFeature;
    std::string name;           // kFeature
    std::vector<int> children;  // kAnd / kOr
  };

 private:
  friend class ConstraintParser;
  bool Eval(int index, const std::vector<std::string>& features) const;
  std::vector<ExprNode> nodes_;
  int root_ = -1;
};

}  // namespace sluice::sched
