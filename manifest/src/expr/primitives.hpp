#pragma once
// The primitives that work on values alone (present, bytes and attribute access need
// the call and live in the evaluator).
#include "expr/expr.hpp"
#include "expr/value_ops.hpp"

#include <tileops/manifest/detail/scratch_arena.hpp>

#include <span>

namespace tileops::manifest::detail {

// broadcast() of two shapes that do not broadcast: which arguments, so that the
// evaluator can say where they came from.
class BroadcastError : public EvalError {
 public:
  BroadcastError(size_t a, size_t b, const Value& sa, const Value& sb)
      : EvalError("shapes " + format_value(sa) + " and " + format_value(sb) + " do not broadcast"),
        first(a), second(b) {}
  size_t first, second;
};

Value call_pure_primitive(Primitive p, std::span<const Value> args, ScratchArena& arena);

// Numpy broadcasting of two shapes into `out` (sized max rank); false on a mismatch.
bool broadcast_shapes(std::span<const int64_t> a, std::span<const int64_t> b, std::span<int64_t> out);

}  // namespace tileops::manifest::detail
