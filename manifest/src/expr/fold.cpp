#include "expr/fold.hpp"

namespace tileops::manifest::detail {
namespace {

class Folder {
 public:
  Folder(const Expr& source, EvalContext& cx) : src_(source), cx_(cx) {}

  Expr run() {
    out_.text = src_.text;
    out_.deps = src_.deps;
    out_.compare_ops = src_.compare_ops;
    out_.root = copy(src_.root);
    return std::move(out_);
  }

 private:
  uint32_t copy(uint32_t i) {
    const Node& n = src_.nodes[i];
    if (n.params_only && n.kind != NodeKind::Const) {
      try {
        Value v = evaluate_node(src_, i, cx_);
        Node c = n;
        c.kind = NodeKind::Const;
        c.first = out_.add_constant(out_.own(v));
        c.count = 0;
        return push(c);
      } catch (const EvalError&) {
        // Left for call time; see the header.
      }
    }
    if (n.kind == NodeKind::Const) {
      Node c = n;
      c.first = out_.add_constant(out_.own(src_.constants[n.first]));
      return push(c);
    }
    if (n.kind == NodeKind::Ref) return push(n);  // `first` is a slot, not kids
    std::vector<uint32_t> kids;
    for (uint32_t k = 0; k < n.count; ++k) kids.push_back(copy(src_.kids[n.first + k]));
    Node c = n;
    c.first = uint32_t(out_.kids.size());
    out_.kids.insert(out_.kids.end(), kids.begin(), kids.end());
    return push(c);
  }

  uint32_t push(const Node& n) {
    out_.nodes.push_back(n);
    return uint32_t(out_.nodes.size() - 1);
  }

  const Expr& src_;
  EvalContext& cx_;
  Expr out_;
};

}  // namespace

Expr fold_params(const Expr& source, EvalContext& params_only) { return Folder(source, params_only).run(); }

}  // namespace tileops::manifest::detail
