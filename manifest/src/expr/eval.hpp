#pragma once
// Evaluation of a compiled expression against one call's state.
#include "expr/expr.hpp"
#include "expr/value_ops.hpp"

#include <tileops/manifest/bound_signature.hpp>
#include <tileops/manifest/detail/call_state.hpp>
#include <tileops/manifest/op_spec.hpp>

#include <span>
#include <string>

namespace tileops::manifest::detail {

// Names of a spec's slots, for messages only.
struct NameTable {
  std::span<const ParamSpec> params;
  std::span<const IndexSpec> indices;
  std::span<const TensorSpec> inputs;
  std::span<const TensorSpec> outputs;
  std::span<const std::string> lets;
};

struct EvalContext {
  std::span<const Value> params;
  CallState* state = nullptr;
  std::span<const Expr* const> lets;        // let i's expression, evaluated on first use
  std::span<const InferredOutput> outputs;  // roofline formulas only
  const NameTable* names = nullptr;
};

Value evaluate(const Expr& expr, EvalContext& cx);
Value evaluate_node(const Expr& expr, uint32_t node, EvalContext& cx);
// The names an expression reads and their values now: "C = 30, num_groups = 4".
// Names without a value yet are left out.
std::string describe_names(const Expr& expr, EvalContext& cx);

}  // namespace tileops::manifest::detail
