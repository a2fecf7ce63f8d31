#include "expr/eval.hpp"

#include "expr/primitives.hpp"

#include <cmath>
#include <algorithm>

namespace tileops::manifest::detail {
namespace {

class Evaluator {
 public:
  Evaluator(const Expr& e, EvalContext& cx) : e_(e), cx_(cx), arena_(cx.state->arena) {}

  Value eval(uint32_t i) {
    const Node& n = e_.nodes[i];
    switch (n.kind) {
      case NodeKind::Const: return e_.constants[n.first];
      case NodeKind::Ref: return ref(n);
      case NodeKind::Unary: return unary(n);
      case NodeKind::Binary: return binary(n);
      case NodeKind::And: {
        Value a = eval(kid(n, 0));
        return truthy(a) ? eval(kid(n, 1)) : a;
      }
      case NodeKind::Or: {
        Value a = eval(kid(n, 0));
        return truthy(a) ? a : eval(kid(n, 1));
      }
      case NodeKind::Not: return Value::boolean(!truthy(eval(kid(n, 0))));
      case NodeKind::Compare: return compare(n);
      case NodeKind::IfElse: return truthy(eval(kid(n, 1))) ? eval(kid(n, 0)) : eval(kid(n, 2));
      case NodeKind::List:
      case NodeKind::Tuple: return display(n);
      case NodeKind::Call: return call(n);
      case NodeKind::Subscript: return subscript(n);
      case NodeKind::Slice: return slice(n);
      case NodeKind::Attr: return attribute(n);
      case NodeKind::Splice:
      case NodeKind::Name: break;
    }
    throw EvalError("internal: node cannot be evaluated");
  }

 private:
  uint32_t kid(const Node& n, uint32_t k) const { return e_.kids[n.first + k]; }

  Value ref(const Node& n) {
    switch (RefKind(n.sub)) {
      case RefKind::Param: return cx_.params[n.first];
      case RefKind::Index:
        if (!cx_.state->is_bound(n.first))
          throw EvalError("index '" + cx_.names->indices[n.first].name + "' has no value yet");
        return cx_.state->indices[n.first];
      case RefKind::Let: {
        CallState& s = *cx_.state;
        uint64_t bit = uint64_t(1) << n.first;
        if (!(s.lets_done & bit)) {
          s.lets[n.first] = evaluate(*cx_.lets[n.first], cx_);
          s.lets_done |= bit;
        }
        return s.lets[n.first];
      }
      default: throw EvalError("a tensor is not a value");
    }
  }

  Value unary(const Node& n) {
    Value v = eval(kid(n, 0));
    if (UnaryOp(n.sub) == UnaryOp::Pos) return v;
    if (v.kind == ValueKind::Float) return Value::real(-v.f);
    int64_t x = as_int(v, "the operand of unary minus");
    if (x == INT64_MIN) throw EvalError("integer overflow");
    return Value::integer(-x);
  }

  static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
  static int64_t floor_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }

  Value binary(const Node& n) {
    Value a = eval(kid(n, 0)), b = eval(kid(n, 1));
    auto op = BinaryOp(n.sub);
    if (a.is_sequence() || b.is_sequence()) return sequence_arithmetic(op, a, b);
    if (!is_number(a) || !is_number(b))
      throw EvalError(std::string("operator '") + binary_op_text(op) + "' cannot combine " + kind_name(a) + " " +
                      format_value(a) + " and " + kind_name(b) + " " + format_value(b));
    if (op == BinaryOp::Div || a.kind == ValueKind::Float || b.kind == ValueKind::Float)
      return float_arithmetic(op, as_float(a, ""), as_float(b, ""));
    int64_t x = as_int(a, ""), y = as_int(b, ""), r = 0;
    switch (op) {
      case BinaryOp::Add:
        if (__builtin_add_overflow(x, y, &r)) throw EvalError("integer overflow");
        return Value::integer(r);
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) throw EvalError("integer overflow");
        return Value::integer(r);
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) throw EvalError("integer overflow");
        return Value::integer(r);
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod:
        if (y == 0) throw EvalError("division by zero: " + std::to_string(x) + " " + binary_op_text(op) + " 0");
        if (y == -1) {  // x86's idiv traps on INT64_MIN / -1
          if (op == BinaryOp::Mod) return Value::integer(0);
          if (__builtin_sub_overflow(0, x, &r)) throw EvalError("integer overflow");
          return Value::integer(r);
        }
        return Value::integer(op == BinaryOp::FloorDiv ? floor_div(x, y) : floor_mod(x, y));
      default: break;
    }
    throw EvalError("internal: unknown operator");
  }

  static Value float_arithmetic(BinaryOp op, double x, double y) {
    double r = 0;
    switch (op) {
      case BinaryOp::Add: r = x + y; break;
      case BinaryOp::Sub: r = x - y; break;
      case BinaryOp::Mul: r = x * y; break;
      case BinaryOp::Div:
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod:
        if (y == 0) throw EvalError("division by zero");
        if (op == BinaryOp::Div) r = x / y;
        else if (op == BinaryOp::FloorDiv) r = std::floor(x / y);
        else r = x - std::floor(x / y) * y;
        break;
    }
    if (!std::isfinite(r)) throw EvalError("the result is not a finite number");
    return Value::real(r);
  }

  Value sequence_arithmetic(BinaryOp op, const Value& a, const Value& b) {
    if (op == BinaryOp::Add && a.is_sequence() && b.is_sequence()) {
      if (a.kind == ValueKind::Ints && b.kind == ValueKind::Ints) {
        auto out = arena_.allocate<int64_t>(a.size + b.size);
        std::copy_n(a.ints, a.size, out.begin());
        std::copy_n(b.ints, b.size, out.begin() + a.size);
        return Value::int_list(out);
      }
      auto out = arena_.allocate<Value>(a.size + b.size);
      for (uint32_t k = 0; k < a.size; ++k) out[k] = element(a, k);
      for (uint32_t k = 0; k < b.size; ++k) out[a.size + k] = element(b, k);
      return Value::tuple(out);
    }
    if (op == BinaryOp::Mul && (a.is_sequence() != b.is_sequence())) {
      const Value& seq = a.is_sequence() ? a : b;
      int64_t times = std::max<int64_t>(0, as_int(a.is_sequence() ? b : a, "a repetition count"));
      if (seq.size == 0) times = 0;
      // Shapes and axis lists are short; a count from a param could ask for 2^63 elements.
      constexpr int64_t kMaxRepeated = 1 << 16;
      if (times > kMaxRepeated / int64_t(std::max<uint32_t>(seq.size, 1)))
        throw EvalError("a sequence of " + std::to_string(seq.size) + " repeated " + std::to_string(times) +
                        " times is longer than " + std::to_string(kMaxRepeated) + " elements");
      auto out = arena_.allocate<Value>(size_t(seq.size * times));
      for (int64_t t = 0; t < times; ++t)
        for (uint32_t k = 0; k < seq.size; ++k) out[size_t(t) * seq.size + k] = element(seq, k);
      return pack(out);
    }
    throw EvalError(std::string("operator '") + binary_op_text(op) + "' cannot combine " + kind_name(a) + " " +
                    format_value(a) + " and " + kind_name(b) + " " + format_value(b));
  }

  // A tuple of ints is stored as an int array (shapes stay cheap); others as Values.
  Value pack(std::span<Value> items) {
    bool ints = std::all_of(items.begin(), items.end(), [](const Value& v) { return is_integer(v); });
    if (!ints) return Value::tuple(items);
    auto out = arena_.allocate<int64_t>(items.size());
    for (size_t k = 0; k < items.size(); ++k) out[k] = as_int(items[k], "");
    return Value::int_list(out);
  }

  Value compare(const Node& n) {
    Value left = eval(kid(n, 0));
    for (uint32_t k = 1; k < n.count; ++k) {
      Value right = eval(kid(n, k));
      if (!compare_pair(e_.compare_ops[n.aux + k - 1], left, right)) return Value::boolean(false);
      left = right;
    }
    return Value::boolean(true);
  }

  static bool compare_pair(CompareOp op, const Value& a, const Value& b) {
    switch (op) {
      case CompareOp::Eq: return equal(a, b);
      case CompareOp::Ne: return !equal(a, b);
      case CompareOp::Lt: return order(a, b) < 0;
      case CompareOp::Le: return order(a, b) <= 0;
      case CompareOp::Gt: return order(a, b) > 0;
      case CompareOp::Ge: return order(a, b) >= 0;
      case CompareOp::In:
      case CompareOp::NotIn: {
        bool found = false;
        if (b.kind == ValueKind::Str && a.kind == ValueKind::Str) {
          found = b.s->find(*a.s) != std::string::npos;
        } else if (b.is_sequence()) {
          for (uint32_t k = 0; k < b.size && !found; ++k) found = equal(a, element(b, k));
        } else {
          throw EvalError(std::string("'in' needs a tuple on its right, got ") + kind_name(b));
        }
        return op == CompareOp::In ? found : !found;
      }
    }
    return false;
  }

  Value display(const Node& n) {
    // Evaluate each item once, then flatten the splices.
    auto items = arena_.allocate<Value>(n.count);
    size_t total = 0;
    for (uint32_t k = 0; k < n.count; ++k) {
      const Node& item = e_.nodes[kid(n, k)];
      if (item.kind == NodeKind::Splice) {
        items[k] = eval(kid(item, 0));
        if (!items[k].is_sequence())
          throw EvalError(std::string("'*' needs a tuple, got ") + kind_name(items[k]) + " " + format_value(items[k]));
        total += items[k].size;
      } else {
        items[k] = eval(kid(n, k));
        total += 1;
      }
    }
    auto flat = arena_.allocate<Value>(total);
    size_t at = 0;
    for (uint32_t k = 0; k < n.count; ++k) {
      if (e_.nodes[kid(n, k)].kind == NodeKind::Splice) {
        for (uint32_t j = 0; j < items[k].size; ++j) flat[at++] = element(items[k], j);
      } else {
        flat[at++] = items[k];
      }
    }
    return pack(flat);
  }

  Value call(const Node& n) {
    auto p = Primitive(n.sub);
    if (p == Primitive::Present) return present(e_.nodes[kid(n, 0)]);
    if (p == Primitive::Bytes) return tensor_bytes(e_.nodes[kid(n, 0)]);
    std::array<Value, kMaxPrimitiveArgs> args;
    if (n.count > kMaxPrimitiveArgs) throw EvalError("internal: more arguments than resolve allows");
    for (uint32_t k = 0; k < n.count; ++k) args[k] = eval(kid(n, k));
    try {
      return call_pure_primitive(p, std::span<const Value>(args.data(), n.count), arena_);
    } catch (const BroadcastError& error) {
      throw broadcast_failure(n, error, args);
    }
  }

  // "inputs 'a' and 'b' do not broadcast: [3, 4] and [5]" when both shapes came from
  // inputs; otherwise the expression's own terms.
  EvalError broadcast_failure(const Node& n, const BroadcastError& error, const std::array<Value, kMaxPrimitiveArgs>& args) {
    int a = origin(kid(n, uint32_t(error.first))), b = origin(kid(n, uint32_t(error.second)));
    std::string shapes = format_value(args[error.first]) + " and " + format_value(args[error.second]);
    if (a >= 0 && b >= 0 && a != b)
      return EvalError("inputs '" + cx_.names->inputs[size_t(a)].name + "' and '" +
                           cx_.names->inputs[size_t(b)].name + "' do not broadcast: " + shapes,
                       true);
    return EvalError("shapes " + shapes + " do not broadcast");
  }

  // The input a shape-valued node came from, or -1.
  int origin(uint32_t i) const {
    const Node& n = e_.nodes[i];
    if (n.kind == NodeKind::Ref && RefKind(n.sub) == RefKind::Index && cx_.state->is_bound(n.first))
      return cx_.state->bound_by_input[n.first];
    if (n.kind == NodeKind::Attr && Attribute(n.sub) == Attribute::Shape) {
      const Node& t = e_.nodes[kid(n, 0)];
      if (t.kind == NodeKind::Ref && RefKind(t.sub) == RefKind::Input) return int(t.first);
    }
    return -1;
  }

  Value present(const Node& target) {
    if (RefKind(target.sub) == RefKind::Param) return Value::boolean(!cx_.params[target.first].is_none());
    return Value::boolean(cx_.state->inputs[target.first].present);
  }

  Value tensor_bytes(const Node& target) {
    std::span<const int64_t> shape;
    DType dtype;
    if (RefKind(target.sub) == RefKind::Output) {
      const InferredOutput& out = cx_.outputs[target.first];
      shape = {out.shape.data(), out.shape.size()};
      dtype = out.dtype;
    } else {
      const SeenInput& in = cx_.state->inputs[target.first];
      if (!in.present) return Value::real(0);
      shape = in.shape;
      dtype = in.dtype;
    }
    double elements = 1;
    for (int64_t d : shape) elements *= double(d);
    return Value::real(elements * dtype.bits * dtype.lanes / 8);
  }

  Value attribute(const Node& n) {
    const Node& target = e_.nodes[kid(n, 0)];
    if (Attribute(n.sub) == Attribute::Value) {
      Value v = eval(kid(n, 0));
      if (v.is_none())
        throw EvalError("parameter '" + cx_.names->params[target.first].name + "' is None (guard with present())");
      return v;
    }
    std::span<const int64_t> shape;
    if (RefKind(target.sub) == RefKind::Output) {
      const Dims& dims = cx_.outputs[target.first].shape;
      shape = {dims.data(), dims.size()};
    } else {
      const SeenInput& in = cx_.state->inputs[target.first];
      if (!in.present)
        throw EvalError("input '" + cx_.names->inputs[target.first].name + "' is absent (guard with present())");
      shape = in.shape;
    }
    if (Attribute(n.sub) == Attribute::Ndim) return Value::integer(int64_t(shape.size()));
    return Value::int_list(shape);
  }

  Value subscript(const Node& n) {
    Value seq = eval(kid(n, 0));
    Value index = eval(kid(n, 1));
    if (!seq.is_sequence()) throw EvalError(std::string("cannot subscript ") + kind_name(seq) + " " + format_value(seq));
    int64_t i = as_int(index, "a subscript"), size = seq.size;
    if (i < -size || i >= size)
      throw EvalError("index " + std::to_string(i) + " is out of range for " + format_value(seq));
    return element(seq, size_t(i < 0 ? i + size : i));
  }

  Value slice(const Node& n) {
    Value seq = eval(kid(n, 0));
    if (!seq.is_sequence()) throw EvalError(std::string("cannot slice ") + kind_name(seq) + " " + format_value(seq));
    Value start_v = eval(kid(n, 1)), stop_v = eval(kid(n, 2)), step_v = eval(kid(n, 3));
    int64_t size = seq.size;
    int64_t step = step_v.is_none() ? 1 : as_int(step_v, "a slice step");
    if (step == 0) throw EvalError("slice step cannot be zero");
    // Python's slice.indices().
    auto clamp = [&](const Value& v, int64_t if_none) {
      if (v.is_none()) return if_none;
      int64_t x = as_int(v, "a slice bound");
      if (x < 0) x += size;
      if (step > 0) return std::clamp<int64_t>(x, 0, size);
      return std::clamp<int64_t>(x, -1, size - 1);
    };
    int64_t start = clamp(start_v, step > 0 ? 0 : size - 1);
    int64_t stop = clamp(stop_v, step > 0 ? size : -1);
    int64_t count = step > 0 ? std::max<int64_t>(0, (stop - start + step - 1) / step)
                             : std::max<int64_t>(0, (start - stop - step - 1) / -step);
    if (step == 1 && seq.kind == ValueKind::Ints) return Value::int_list(seq.int_span().subspan(size_t(start), size_t(count)));
    auto out = arena_.allocate<Value>(size_t(count));
    for (int64_t k = 0; k < count; ++k) out[size_t(k)] = element(seq, size_t(start + k * step));
    return seq.kind == ValueKind::Tuple ? Value::tuple(out) : pack_like(seq, out);
  }

  Value pack_like(const Value& seq, std::span<Value> items) {
    if (seq.kind == ValueKind::Floats) {
      auto out = arena_.allocate<double>(items.size());
      for (size_t k = 0; k < items.size(); ++k) out[k] = items[k].f;
      return Value::float_list(out);
    }
    return pack(items);
  }

  const Expr& e_;
  EvalContext& cx_;
  ScratchArena& arena_;
};

void collect_names(const Expr& e, uint32_t i, std::vector<uint32_t>& out) {
  const Node& n = e.nodes[i];
  bool named = n.kind == NodeKind::Ref && RefKind(n.sub) != RefKind::Output;
  bool shape_of_input = n.kind == NodeKind::Attr && Attribute(n.sub) != Attribute::Value;
  if (named || shape_of_input) {
    for (uint32_t seen : out) {
      const Node& s = e.nodes[seen];
      if (s.kind == n.kind && s.sub == n.sub && s.first == n.first &&
          (n.kind != NodeKind::Attr || e.nodes[e.kids[s.first]].first == e.nodes[e.kids[n.first]].first))
        return;
    }
    out.push_back(i);
    if (shape_of_input) return;
  }
  if (n.kind == NodeKind::Const || n.kind == NodeKind::Ref || n.kind == NodeKind::Name) return;
  for (uint32_t k = 0; k < n.count; ++k) collect_names(e, e.kids[n.first + k], out);
}

std::string node_name(const Expr& e, const Node& n, const NameTable& names) {
  if (n.kind == NodeKind::Attr) {
    const Node& t = e.nodes[e.kids[n.first]];
    return names.inputs[t.first].name + (Attribute(n.sub) == Attribute::Ndim ? ".ndim" : ".shape");
  }
  switch (RefKind(n.sub)) {
    case RefKind::Param: return names.params[n.first].name;
    case RefKind::Index: return names.indices[n.first].name;
    case RefKind::Let: return names.lets[n.first];
    case RefKind::Input: return "present(" + names.inputs[n.first].name + ")";
    default: return "?";
  }
}

}  // namespace

Value evaluate(const Expr& expr, EvalContext& cx) { return Evaluator(expr, cx).eval(expr.root); }

Value evaluate_node(const Expr& expr, uint32_t node, EvalContext& cx) { return Evaluator(expr, cx).eval(node); }

std::string describe_names(const Expr& expr, EvalContext& cx) {
  std::vector<uint32_t> nodes;
  collect_names(expr, expr.root, nodes);
  std::string out;
  for (uint32_t i : nodes) {
    const Node& n = expr.nodes[i];
    std::string value;
    try {
      if (n.kind == NodeKind::Ref && RefKind(n.sub) == RefKind::Input)
        value = cx.state->inputs[n.first].present ? "true" : "false";
      else
        value = format_value(evaluate_node(expr, i, cx));
    } catch (const EvalError&) {
      continue;  // no value yet
    }
    out += (out.empty() ? "" : ", ") + node_name(expr, n, *cx.names) + " = " + value;
  }
  return out;
}

}  // namespace tileops::manifest::detail
