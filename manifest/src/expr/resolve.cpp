#include "expr/resolve.hpp"

#include <tileops/dtype.hpp>

namespace tileops::manifest::detail {
namespace {

using T = StaticType;

bool numeric(T t) { return t == T::Any || t == T::Bool || t == T::Int || t == T::Float; }
bool sequence(T t) { return t == T::Any || t == T::Ints || t == T::Floats || t == T::Seq; }
bool integral(T t) { return t == T::Any || t == T::Bool || t == T::Int; }
bool int_sequence(T t) { return t == T::Any || t == T::Ints || t == T::Seq; }

T element_type(T seq) {
  if (seq == T::Ints) return T::Int;
  if (seq == T::Floats) return T::Float;
  return T::Any;
}

T arithmetic_result(T a, T b) {
  if (a == T::Any || b == T::Any) return T::Any;
  if (a == T::Float || b == T::Float) return T::Float;
  return T::Int;
}

T join(T a, T b) {
  if (a == b) return a;
  if (numeric(a) && numeric(b)) return arithmetic_result(a, b);
  return T::Any;
}

class Resolver {
 public:
  Resolver(Expr& expr, const Scope& scope, ResolveOptions options)
      : e_(expr), scope_(scope), options_(options) {}

  std::vector<ExprProblem> run() {
    visit(e_.root);
    if (e_.nodes[e_.root].type == T::Tensor) tensor_misuse(e_.root);
    return std::move(problems_);
  }

 private:
  void problem(uint32_t node, std::string message) {
    problems_.push_back({e_.nodes[node].pos, std::move(message)});
  }
  Node& n(uint32_t i) { return e_.nodes[i]; }
  uint32_t kid(uint32_t node, uint32_t k) { return e_.kids[n(node).first + k]; }
  T kid_type(uint32_t node, uint32_t k) { return n(kid(node, k)).type; }

  void tensor_misuse(uint32_t node) {
    problem(node, "a tensor can only be used as x.shape, x.ndim, present(x) or bytes(x)");
  }

  // Visits the kids first; then types this node and merges its dependencies.
  void visit(uint32_t i) {
    Node& node = n(i);
    if (node.kind == NodeKind::Name) return name(i);
    if (node.kind == NodeKind::Const) return constant(i);
    bool params_only = true;
    for (uint32_t k = 0; k < node.count; ++k) {
      uint32_t child = kid(i, k);
      visit(child);
      params_only = params_only && n(child).params_only;
      if (n(child).type == T::Tensor && !tensor_allowed_under(i)) {
        tensor_misuse(child);
        n(child).type = T::Any;  // reported once, not again by the operator using it
      }
    }
    n(i).params_only = params_only;
    n(i).type = type_of(i);
  }

  bool tensor_allowed_under(uint32_t parent) {
    const Node& p = n(parent);
    if (p.kind == NodeKind::Attr) return p.sub != uint8_t(Attribute::Value);
    if (p.kind == NodeKind::Call)
      return p.sub == uint8_t(Primitive::Present) || p.sub == uint8_t(Primitive::Bytes);
    return false;
  }

  void constant(uint32_t i) {
    Node& node = n(i);
    node.params_only = true;
    switch (e_.constants[node.first].kind) {
      case ValueKind::None: node.type = T::None; break;
      case ValueKind::Bool: node.type = T::Bool; break;
      case ValueKind::Int: node.type = T::Int; break;
      case ValueKind::Float: node.type = T::Float; break;
      case ValueKind::Str: node.type = T::Str; break;
      case ValueKind::DType: node.type = T::DType; break;
      case ValueKind::Ints: node.type = T::Ints; break;
      case ValueKind::Floats: node.type = T::Floats; break;
      case ValueKind::Tuple: node.type = T::Seq; break;
    }
  }

  void name(uint32_t i) {
    Node& node = n(i);
    const std::string& text = e_.names[node.first];
    const Binding* b = scope_.find(text);
    if (!b) {
      if (auto dtype = DType::parse(text)) {
        node.kind = NodeKind::Const;
        node.first = e_.add_constant(Value::dtype_of(*dtype));
        return constant(i);
      }
      problem(i, "unknown name '" + text + "'");
      node.type = T::Any;
      return;
    }
    if (b->kind == RefKind::Output && !options_.roofline) {
      problem(i, "output '" + text + "' can only be used in roofline formulas");
    }
    node.kind = NodeKind::Ref;
    node.sub = uint8_t(b->kind);
    node.first = b->slot;
    node.type = b->type;
    node.aux = b->nullable;
    switch (b->kind) {
      case RefKind::Param: node.params_only = true; break;
      case RefKind::Let:
        node.params_only = b->params_only;
        e_.deps.indices |= b->deps.indices;
        e_.deps.inputs |= b->deps.inputs;
        e_.deps.outputs |= b->deps.outputs;
        e_.deps.lets |= b->deps.lets | uint64_t(1) << b->slot;
        break;
      case RefKind::Index: e_.deps.indices |= uint64_t(1) << b->slot; break;
      case RefKind::Input: e_.deps.inputs |= uint64_t(1) << b->slot; break;
      case RefKind::Output: e_.deps.outputs |= uint64_t(1) << b->slot; break;
    }
  }

  T type_of(uint32_t i) {
    const Node& node = n(i);
    switch (node.kind) {
      case NodeKind::Unary: {
        T t = kid_type(i, 0);
        if (!numeric(t)) problem(i, std::string("unary minus needs a number, got ") + type_name(t));
        return t == T::Bool ? T::Int : t;
      }
      case NodeKind::Binary: return binary(i);
      case NodeKind::And:
      case NodeKind::Or: return join(kid_type(i, 0), kid_type(i, 1));
      case NodeKind::Not: return T::Bool;
      case NodeKind::Compare: return compare(i);
      case NodeKind::IfElse: return join(kid_type(i, 0), kid_type(i, 2));
      case NodeKind::List:
      case NodeKind::Tuple: return display(i);
      case NodeKind::Splice: {
        T t = kid_type(i, 0);
        if (!sequence(t)) problem(i, std::string("'*' needs a tuple, got ") + type_name(t));
        return t;
      }
      case NodeKind::Call: return call(i);
      case NodeKind::Subscript: {
        if (n(kid(i, 1)).kind == NodeKind::Tuple) {
          problem(i, "a subscript takes one index (a type family application must be a whole shape)");
          return T::Any;
        }
        T seq = kid_type(i, 0);
        if (!sequence(seq)) problem(i, std::string("cannot subscript a ") + type_name(seq));
        if (!integral(kid_type(i, 1))) problem(i, "a subscript index must be an int");
        return element_type(seq);
      }
      case NodeKind::Slice: {
        T seq = kid_type(i, 0);
        if (!sequence(seq)) problem(i, std::string("cannot slice a ") + type_name(seq));
        for (uint32_t k = 1; k < 4; ++k) {
          T b = kid_type(i, k);
          if (b != T::None && !integral(b)) problem(i, "slice bounds must be ints");
        }
        return seq;
      }
      case NodeKind::Attr: return attribute(i);
      default: return T::Any;
    }
  }

  T binary(uint32_t i) {
    auto op = BinaryOp(n(i).sub);
    T a = kid_type(i, 0), b = kid_type(i, 1);
    auto fail = [&] {
      problem(i, std::string("operator '") + binary_op_text(op) + "' cannot combine " + type_name(a) +
                     " and " + type_name(b));
      return T::Any;
    };
    if (op == BinaryOp::Add && sequence(a) && sequence(b) && (a != T::Any || b != T::Any)) {
      if (a == b) return a;
      return (a == T::Any || b == T::Any) ? T::Any : T::Seq;
    }
    if (op == BinaryOp::Add && a == T::Str && b == T::Str) return T::Str;
    if (op == BinaryOp::Mul && ((sequence(a) && a != T::Any && integral(b)) ||
                                (sequence(b) && b != T::Any && integral(a))))
      return sequence(a) && a != T::Any ? a : b;
    if (!numeric(a) || !numeric(b)) return fail();
    if (op == BinaryOp::Div) return T::Float;
    return arithmetic_result(a, b);
  }

  T compare(uint32_t i) {
    const Node& node = n(i);
    for (uint32_t k = 0; k + 1 < node.count; ++k) {
      CompareOp op = e_.compare_ops[node.aux + k];
      T a = kid_type(i, k), b = kid_type(i, k + 1);
      bool ok = true;
      if (op == CompareOp::In || op == CompareOp::NotIn) ok = sequence(b) || b == T::Str;
      else if (op != CompareOp::Eq && op != CompareOp::Ne)
        ok = (numeric(a) && numeric(b)) || (a == T::Str && b == T::Str) || (sequence(a) && sequence(b));
      if (!ok)
        problem(i, std::string("cannot compare ") + type_name(a) + " " + compare_op_text(op) + " " +
                       type_name(b));
    }
    return T::Bool;
  }

  T display(uint32_t i) {
    const Node& node = n(i);
    bool ints = true, floats = true;
    for (uint32_t k = 0; k < node.count; ++k) {
      const Node& item = n(kid(i, k));
      T t = item.type;
      if (item.kind == NodeKind::Splice) t = element_type(t);
      ints = ints && (t == T::Int || t == T::Bool);
      floats = floats && t == T::Float;
    }
    if (node.count == 0 || ints) return T::Ints;
    return floats ? T::Floats : T::Seq;
  }

  T attribute(uint32_t i) {
    auto attr = Attribute(n(i).sub);
    uint32_t target = kid(i, 0);
    const Node& t = n(target);
    if (attr == Attribute::Value) {
      bool ok = t.kind == NodeKind::Ref && t.sub == uint8_t(RefKind::Param) && nullable(target);
      if (!ok) problem(i, "'.value' applies to a parameter of type 'X | None'");
      return t.type;
    }
    if (t.type != T::Tensor && t.type != T::Any)
      problem(i, std::string(attr == Attribute::Ndim ? "'.ndim'" : "'.shape'") + " applies to a tensor");
    return attr == Attribute::Ndim ? T::Int : T::Ints;
  }

  // Ref nodes keep their binding's nullability in `aux`.
  bool nullable(uint32_t ref) { return n(ref).aux != 0; }

  bool arity(uint32_t i, uint32_t low, uint32_t high) {
    uint32_t count = n(i).count;
    if (count >= low && count <= high) return true;
    std::string expected = low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high);
    problem(i, std::string(primitive_name(Primitive(n(i).sub))) + "() takes " + expected +
                   " arguments, got " + std::to_string(count));
    return false;
  }

  void need(uint32_t i, uint32_t k, bool ok, const char* what) {
    if (ok) return;
    problem(kid(i, k), std::string(primitive_name(Primitive(n(i).sub))) + "() argument " +
                           std::to_string(k + 1) + " must be " + what + ", got " + type_name(kid_type(i, k)));
  }

  T call(uint32_t i) {
    auto p = Primitive(n(i).sub);
    switch (p) {
      case Primitive::Len:
        if (arity(i, 1, 1)) need(i, 0, sequence(kid_type(i, 0)), "a tuple");
        return T::Int;
      case Primitive::Prod:
      case Primitive::Sum:
        if (!arity(i, 1, 1)) return T::Any;
        need(i, 0, sequence(kid_type(i, 0)), "a tuple");
        return kid_type(i, 0) == T::Ints ? T::Int : kid_type(i, 0) == T::Floats ? T::Float : T::Any;
      case Primitive::Max:
      case Primitive::Min: {
        if (!arity(i, 1, kMaxPrimitiveArgs)) return T::Any;
        if (n(i).count == 1) {
          need(i, 0, sequence(kid_type(i, 0)), "a tuple (or give several arguments)");
          return element_type(kid_type(i, 0));
        }
        T result = kid_type(i, 0);
        for (uint32_t k = 0; k < n(i).count; ++k) {
          need(i, k, numeric(kid_type(i, k)), "a number");
          result = join(result, kid_type(i, k));
        }
        return result;
      }
      case Primitive::All:
        if (arity(i, 1, 1)) need(i, 0, sequence(kid_type(i, 0)), "a tuple");
        return T::Bool;
      case Primitive::CeilDiv:
        if (arity(i, 2, 2)) {
          need(i, 0, integral(kid_type(i, 0)), "an int");
          need(i, 1, integral(kid_type(i, 1)), "an int");
        }
        return T::Int;
      case Primitive::Broadcast:
        if (arity(i, 2, kMaxPrimitiveArgs))
          for (uint32_t k = 0; k < n(i).count; ++k) need(i, k, int_sequence(kid_type(i, k)), "a shape");
        return T::Ints;
      case Primitive::Reduced:
        if (arity(i, 2, 3)) {
          need(i, 0, int_sequence(kid_type(i, 0)), "a shape");
          T dim = kid_type(i, 1);
          need(i, 1, integral(dim) || int_sequence(dim) || dim == T::None, "an int, a list of ints or None");
          if (n(i).count == 3) need(i, 2, integral(kid_type(i, 2)), "a bool");
        }
        return T::Ints;
      case Primitive::NormalizeAxis:
        if (arity(i, 2, 2)) {
          need(i, 0, integral(kid_type(i, 0)), "an int");
          need(i, 1, integral(kid_type(i, 1)), "an int");
        }
        return T::Int;
      case Primitive::ValidAxes:
        if (arity(i, 2, 2)) {
          T dim = kid_type(i, 0);
          need(i, 0, integral(dim) || int_sequence(dim) || dim == T::None, "an int, a list of ints or None");
          need(i, 1, integral(kid_type(i, 1)), "an int");
        }
        return T::Bool;
      case Primitive::PromoteIntToFloat:
        if (arity(i, 1, 1)) need(i, 0, kid_type(i, 0) == T::DType || kid_type(i, 0) == T::Any, "a dtype");
        return T::DType;
      case Primitive::Bytes:
        if (!options_.roofline) problem(i, "bytes() is only allowed in roofline formulas");
        if (arity(i, 1, 1)) need(i, 0, kid_type(i, 0) == T::Tensor, "a tensor");
        return T::Float;
      case Primitive::Present: {
        if (!arity(i, 1, 1)) return T::Bool;
        uint32_t target = kid(i, 0);
        const Node& t = n(target);
        bool ok = t.kind == NodeKind::Ref &&
                  (t.sub == uint8_t(RefKind::Input) || (t.sub == uint8_t(RefKind::Param) && nullable(target)));
        if (!ok) problem(i, "present() takes an input tensor or a parameter of type 'X | None'");
        return T::Bool;
      }
    }
    return T::Any;
  }

  Expr& e_;
  const Scope& scope_;
  ResolveOptions options_;
  std::vector<ExprProblem> problems_;
};

}  // namespace

std::vector<ExprProblem> resolve(Expr& expr, const Scope& scope, ResolveOptions options) {
  return Resolver(expr, scope, options).run();
}

}  // namespace tileops::manifest::detail
