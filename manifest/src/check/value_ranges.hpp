#pragma once
// Where an input's values are drawn from: its `values` range evaluated over the call's
// bindings, or the defaults for integer and floating inputs.
#include "check/bound_plan.hpp"

#include <tileops/manifest/workload.hpp>

namespace tileops::manifest::detail {

ValueRange input_value_range(const CompiledSpec& spec, size_t input, DType dtype, EvalContext& cx);

}  // namespace tileops::manifest::detail
