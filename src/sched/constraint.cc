#include "sched/constraint.h"

#include <algorithm>
#include <cctype>

namespace sluice::sched {

namespace {
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == ':' || c == '+' || c == '/';
}
}  // namespace

// Recursive-descent parser building FeatureExpr::nodes_ bottom-up.
class ConstraintParser {
 public:
  ConstraintParser(std::string_view text, FeatureExpr* out) : text_(text), out_(out) {}

  Status Run() {
    SkipSpace();
    if (pos_ == text_.size()) return Status::Ok();  // empty: matches everything
    int root = 0;
    RETURN_IF_ERROR(ParseExpr(&root, 0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(1, text_[pos_]) + "'");
    out_->root_ = root;
    return Status::Ok();
  }

 private:
  static constexpr int kMaxDepth = 64;

  Status ParseBinary(int* out, int depth, char op, FeatureExpr::ExprNode::Kind kind) {
    std::vector<int> parts;
    int child = 0;
    RETURN_IF_ERROR(op == '|' ? ParseTerm(&child, depth) : ParseFactor(&child, depth));
    parts.push_back(child);
    while (SkipSpace(), pos_ < text_.size() && text_[pos_] == op) {
      ++pos_;
      RETURN_IF_ERROR(op == '|' ? ParseTerm(&child, depth) : ParseFactor(&child, depth));
      parts.push_back(child);
    }
    if (parts.size() == 1) {
      *out = parts[0];
      return Status::Ok();
    }
    FeatureExpr::ExprNode node;
    node.kind = kind;
    node.children = std::move(parts);
    *out = Add(std::move(node));
    return Status::Ok();
  }

  Status ParseExpr(int* out, int depth) {
    return ParseBinary(out, depth, '|', FeatureExpr::ExprNode::Kind::kOr);
  }
  Status ParseTerm(int* out, int depth) {
    return ParseBinary(out, depth, '&', FeatureExpr::ExprNode::Kind::kAnd);
  }

  Status ParseFactor(int* out, int depth) {
    SkipSpace();
    if (pos_ == text_.size()) return Error("expected a feature name");
    char c = text_[pos_];
    if (c == '(') {
      if (depth >= kMaxDepth) return Error("too deeply nested");
      ++pos_;
      RETURN_IF_ERROR(ParseExpr(out, depth + 1));
      SkipSpace();
      if (pos_ == text_.size() || text_[pos_] != ')') return Error("missing ')'");
      ++pos_;
      return Status::Ok();
    }
    if (c == '[' || c == ']') return Error("bracketed feature sets are not supported");
    if (c == '*') return Error("feature counts are not supported");
    if (c == '!') return Error("feature negation is not supported");
    if (!IsNameChar(c)) return Error("expected a feature name");
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    FeatureExpr::ExprNode node;
    node.name = std::string(text_.substr(start, pos_ - start));
    *out = Add(std::move(node));
    return Status::Ok();
  }

  int Add(FeatureExpr::ExprNode node) {
    out_->nodes_.push_back(std::move(node));
    return static_cast<int>(out_->nodes_.size()) - 1;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  Status Error(const std::string& what) const {
    return InvalidArgument("Invalid feature specification '" + std::string(text_) + "': " + what +
                           " at position " + std::to_string(pos_ + 1));
  }

  std::string_view text_;
  FeatureExpr* out_;
  size_t pos_ = 0;
};

Expected<FeatureExpr> FeatureExpr::Parse(std::string_view text) {
  FeatureExpr expr;
  ConstraintParser parser(text, &expr);
  Status st = parser.Run();
  if (!st.ok()) return st;
  return expr;
}

bool FeatureExpr::Matches(const std::vector<std::string>& features) const {
  if (root_ < 0) return true;
  return Eval(root_, features);
}

bool FeatureExpr::Eval(int index, const std::vector<std::string>& features) const {
  const ExprNode& n = nodes_[index];
  switch (n.kind) {
    case ExprNode::Kind::kFeature:
      return std::find(features.begin(), features.end(), n.name) != features.end();
    case ExprNode::Kind::kAnd:
      return std::all_of(n.children.begin(), n.children.end(),
                         [&](int c) { return Eval(c, features); });
    case ExprNode::Kind::kOr:
      return std::any_of(n.children.begin(), n.children.end(),
                         [&](int c) { return Eval(c, features); });
  }
  return false;
}

std::vector<std::string> FeatureExpr::Names() const {
  std::vector<std::string> out;
  for (const ExprNode& n : nodes_)
    if (n.kind == ExprNode::Kind::kFeature) out.push_back(n.name);
  return out;
}

}  // namespace sluice::sched
