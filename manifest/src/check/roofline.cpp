// BoundSignature::roofline: the spec's formulas over a checked call; bytes derived from
// the signature when the spec gives none.
#include "check/checker.hpp"

#include <tileops/errors.hpp>

namespace tileops::manifest {
namespace {

double tensor_bytes(std::span<const int64_t> shape, DType dtype) {
  double elements = 1;
  for (int64_t d : shape) elements *= double(d);
  return elements * dtype.bits * dtype.lanes / 8;
}

}  // namespace

namespace detail {

// Each input not written is read once, each output written once, a mutated input read
// and written, a write_only input written; an alias output is its input, counted there.
double derived_bytes(const BoundPlan& plan, const CallState& state, std::span<const InferredOutput> outputs) {
  double total = 0;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const SeenInput& in = state.inputs[i];
    if (!in.present) continue;
    const BoundTensor& t = plan.inputs[i];
    total += tensor_bytes(in.shape, in.dtype) * (t.mutated ? 2 : 1);
  }
  for (size_t j = 0; j < outputs.size(); ++j)
    if (plan.outputs[j].alias < 0) total += tensor_bytes({outputs[j].shape.data(), outputs[j].shape.size()}, outputs[j].dtype);
  return total;
}

}  // namespace detail

Roofline BoundSignature::roofline(const CallCheck& call) const {
  const detail::BoundPlan& plan = *plan_;
  if (call.checked_by_ != this) throw ValueError(plan.spec->name + ": roofline() needs a CallCheck this signature checked");
  // Formulas may memoise lets and build tuples: evaluate on a copy of the bindings so
  // that `call` stays as check() left it.
  auto state = std::make_unique<detail::CallState>();
  state->bound = call.state_.bound;
  state->indices = call.state_.indices;
  state->inputs = call.state_.inputs;
  detail::EvalContext cx{plan.param_values, state.get(), plan.lets, call.outputs(), &plan.names};
  auto number = [&](const detail::Expr& e, const char* what) {
    try {
      return detail::as_float(detail::evaluate(e, cx), what);
    } catch (const detail::EvalError& error) {
      throw ValueError(plan.spec->name + ": roofline " + what + " '" + e.text + "': " + error.what());
    }
  };
  Roofline out;
  if (plan.flops) out.flops = number(*plan.flops, "flops");
  out.bytes = plan.bytes ? number(*plan.bytes, "bytes") : derived_bytes(call);
  return out;
}

double BoundSignature::derived_bytes(const CallCheck& call) const {
  if (call.checked_by_ != this) throw ValueError(plan_->spec->name + ": derived_bytes() needs a CallCheck this signature checked");
  return detail::derived_bytes(*plan_, call.state_, call.outputs());
}

}  // namespace tileops::manifest
