#pragma once
// A compiled expression: a flat array of nodes whose names are already resolved to
// slots. Built once when a spec loads (or when a bound signature folds its params
// in) and evaluated many times; evaluation never sees the source text again.
#include <tileops/manifest/detail/value.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace tileops::manifest::detail {

enum class NodeKind : uint8_t {
  Const,      // first: constant index
  Name,       // unresolved name (parser output only); first: name index
  Ref,        // resolved name; sub: RefKind, first: slot
  Unary,      // sub: UnaryOp; one kid
  Binary,     // sub: BinaryOp; two kids
  And,        // two kids, short-circuit
  Or,         // two kids, short-circuit
  Not,        // one kid
  Compare,    // kids: operands; operators at compare_ops[aux...]
  IfElse,     // kids: value, condition, otherwise
  List,       // kids: items (each may be a Splice)
  Tuple,      // kids: items
  Splice,     // *x inside a list or tuple display; one kid
  Call,       // sub: Primitive; kids: arguments
  Subscript,  // kids: sequence, index
  Slice,      // kids: sequence, start, stop, step (an absent bound is a None constant)
  Attr,       // sub: Attribute; one kid
};

enum class RefKind : uint8_t { Param, Index, Let, Input, Output };
enum class UnaryOp : uint8_t { Neg, Pos };
enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod };
enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };
enum class Attribute : uint8_t { Value, Ndim, Shape };
enum class Primitive : uint8_t {
  Len, Prod, Sum, Max, Min, All, CeilDiv, Broadcast, Reduced, NormalizeAxis, ValidAxes,
  PromoteIntToFloat, Bytes, Present,
};

// What the loader knows about a value before any call: enough to reject `len(eps)`.
enum class StaticType : uint8_t { Any, None, Bool, Int, Float, Str, DType, Ints, Floats, Seq, Tensor };

struct Node {
  NodeKind kind;
  uint8_t sub = 0;
  bool params_only = false;  // depends on nothing but params and constants: foldable at bind
  StaticType type = StaticType::Any;
  uint32_t pos = 0;    // byte offset into the source text, for messages
  uint32_t first = 0;  // first kid in Expr::kids, constant index, slot or name index
  uint32_t count = 0;  // number of kids
  uint32_t aux = 0;    // Compare: index of its first operator in compare_ops; Ref: nullable
};

// What an expression reads, transitively through lets.
struct Deps {
  uint64_t indices = 0;
  uint64_t inputs = 0;
  uint64_t outputs = 0;
  uint64_t lets = 0;
  bool params_only() const { return !indices && !inputs && !outputs; }
};

class Expr {
 public:
  std::string text;
  std::vector<Node> nodes;
  std::vector<uint32_t> kids;
  std::vector<CompareOp> compare_ops;
  std::vector<std::string> names;  // Name nodes before resolution
  std::vector<Value> constants;
  uint32_t root = 0;
  Deps deps;

  Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  Expr(Expr&&) = default;
  Expr& operator=(Expr&&) = default;

  const Node& node(uint32_t i) const { return nodes[i]; }
  const Node& root_node() const { return nodes[root]; }
  uint32_t kid(const Node& n, uint32_t k) const { return kids[n.first + k]; }
  StaticType type() const { return nodes[root].type; }

  // Constant storage: the returned values point into storage this expression owns.
  uint32_t add_constant(Value v) {
    constants.push_back(v);
    return uint32_t(constants.size() - 1);
  }
  Value own_string(std::string s) { return Value::str(&strings_.emplace_back(std::move(s))); }
  Value own_ints(std::vector<int64_t> v) { return Value::int_list(int_lists_.emplace_back(std::move(v))); }
  Value own_floats(std::vector<double> v) { return Value::float_list(float_lists_.emplace_back(std::move(v))); }
  Value own_tuple(std::vector<Value> v) { return Value::tuple(tuples_.emplace_back(std::move(v))); }
  // A deep copy of `v` whose payload this expression owns.
  Value own(const Value& v);

 private:
  // deques: growing them never moves what earlier Values point at.
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> int_lists_;
  std::deque<std::vector<double>> float_lists_;
  std::deque<std::vector<Value>> tuples_;
};

const char* type_name(StaticType t);
const char* primitive_name(Primitive p);
// The most arguments a primitive call takes (the evaluator's fixed argument buffer).
constexpr uint32_t kMaxPrimitiveArgs = 8;
const char* compare_op_text(CompareOp op);
const char* binary_op_text(BinaryOp op);

}  // namespace tileops::manifest::detail
