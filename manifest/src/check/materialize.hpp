#pragma once
// A bound shape or dtype turned into concrete values once every index it reads has
// one: output inference, and workload inputs built from a row.
#include "check/bound_plan.hpp"

#include <tileops/shape.hpp>

namespace tileops::manifest::detail {

// Throws EvalError (naming the index without a value, or what failed).
void materialize_shape(const BoundShape& shape, EvalContext& cx, Dims& out);
DType materialize_dtype(const BoundDType& dtype, EvalContext& cx);

}  // namespace tileops::manifest::detail
