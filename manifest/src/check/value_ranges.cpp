#include "check/value_ranges.hpp"

#include "check/checker.hpp"

#include <tileops/errors.hpp>

namespace tileops::manifest {
namespace detail {

ValueRange input_value_range(const CompiledSpec& spec, size_t input, DType dtype, EvalContext& cx) {
  const CompiledTensor& c = spec.input_templates[input];
  ValueRange r;
  if (c.values_low && c.values_high) {
    try {
      r.distribution = ValueRange::Distribution::Uniform;
      r.low = as_float(evaluate(*c.values_low, cx), "values.low");
      r.high = as_float(evaluate(*c.values_high, cx), "values.high");
    } catch (const EvalError& error) {
      throw ValueError("input '" + spec.inputs[input].name + "' values: " + error.what());
    }
  } else if (dtype.is_integral()) {
    r.distribution = ValueRange::Distribution::Uniform;
    r.low = 0;
    r.high = dtype.code == TILEOPS_DTYPE_BOOL ? 2 : 16;
  }
  return r;
}

}  // namespace detail

std::vector<ValueRange> BoundSignature::value_ranges(const CallCheck& call) const {
  const detail::BoundPlan& plan = *plan_;
  if (call.checked_by_ != this)
    throw ValueError(plan.spec->name + ": value_ranges() needs a CallCheck this signature checked");
  auto state = std::make_unique<detail::CallState>();  // evaluation may memoise lets
  state->bound = call.state_.bound;
  state->indices = call.state_.indices;
  state->inputs = call.state_.inputs;
  detail::EvalContext cx{plan.param_values, state.get(), plan.lets, call.outputs(), &plan.names};
  std::vector<ValueRange> out;
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    out.push_back(state->inputs[i].present
                      ? detail::input_value_range(*plan.spec, i, state->inputs[i].dtype, cx)
                      : ValueRange{});
  return out;
}

}  // namespace tileops::manifest
